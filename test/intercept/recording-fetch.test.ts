import { createRecordingFetch } from '../../src/intercept/recording-fetch.js';
import { recorderSuite } from './common.case.js';
import { closeServer, listen, memoryRecorder } from './harness.js';

recorderSuite('fetch wrapper', async (handler) => {
  const upstream = await listen(handler);
  const rec = memoryRecorder(upstream.url);
  const recordingFetch = createRecordingFetch(fetch, { recorder: rec.recorder });
  return {
    fetch: (path, init) => recordingFetch(`${upstream.url}${path}`, init),
    settled: rec.settled,
    text: async () => rec.sink.text(),
    close: () => closeServer(upstream.server),
  };
});
