import { startRecordingProxy } from '../../src/intercept/recording-proxy.js';
import { recorderSuite } from './common.case.js';
import { closeServer, listen, memoryRecorder } from './harness.js';

recorderSuite('reverse proxy', async (handler) => {
  const upstream = await listen(handler);
  const rec = memoryRecorder(upstream.url);
  const proxy = await startRecordingProxy({ upstream: upstream.url, recorder: rec.recorder });
  return {
    fetch: (path, init) => fetch(`${proxy.url}${path}`, init),
    settled: rec.settled,
    text: async () => rec.sink.text(),
    close: async () => {
      await proxy.close({ graceMs: 0 });
      await closeServer(upstream.server);
    },
  };
});
