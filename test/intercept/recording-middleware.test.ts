import { withRecording } from '../../src/intercept/recording-middleware.js';
import { recorderSuite } from './common.case.js';
import { closeServer, listen, memoryRecorder } from './harness.js';

recorderSuite('server middleware', async (handler) => {
  const rec = memoryRecorder('http://127.0.0.1/in-process');
  const upstream = await listen(withRecording({ recorder: rec.recorder }, handler));
  return {
    fetch: (path, init) => fetch(`${upstream.url}${path}`, init),
    settled: rec.settled,
    text: async () => rec.sink.text(),
    close: () => closeServer(upstream.server),
  };
});
