/**
 * @module record/option-error
 * A recorder option that cannot be used: {@link RecorderOptionError} names the option (as
 * `startRecorder` spells it) and says what was wrong, so a caller can name it in its own words
 * (the CLI names the flag).
 */
import { A2aReplayError } from '../errors.js';

export class RecorderOptionError extends A2aReplayError {
  /** The options at fault, as `startRecorder` names them (`rotateBytes`, `witnessUrl`, ...). */
  readonly options: readonly string[];
  /** What was wrong, without the option names. */
  readonly detail: string;

  constructor(options: string | readonly string[], detail: string) {
    const names = typeof options === 'string' ? [options] : options;
    super('INVALID_ARGUMENT', `${names.join(', ')}: ${detail}`);
    this.name = 'RecorderOptionError';
    this.options = names;
    this.detail = detail;
  }
}
