/**
 * @module http/lazy-h2c
 * A server of h2c connections loaded when the first one comes (docs/design.md §2, "Start-up"): the
 * gRPC servers of the reference peer and of `mock` cost grpc-js and the generated codecs, about
 * 0.2 s of CPU to load, which a process only reached over the JSON bindings need not pay. The
 * sniffing port holds the connection, unread, until the server has it (src/http/transport-sniff.ts).
 */
import type { Socket } from 'node:net';

/** What the loaded server must do: take a connection, and close. */
export interface ConnectionServer {
  injectConnection(socket: Socket): void;
  close(): void;
}

/** The route for h2c connections, loading the server for the first; `close` closes it once loaded. */
export interface LazyH2c {
  route: (socket: Socket) => Promise<void>;
  close: () => void;
}

/** `load` is called once, at the first connection; a failure is told through `onError` and refuses the connection. */
export function lazyH2c(load: () => Promise<ConnectionServer>, onError: (error: unknown) => void): LazyH2c {
  let loading: Promise<ConnectionServer> | undefined;
  /** The server once loaded, until closed. */
  let loaded: ConnectionServer | undefined;
  let closed = false;
  const server = (): Promise<ConnectionServer> =>
    (loading ??= load().then((made) => {
      // Closed while it loaded (a connection handed over as the port closed): closed at once.
      if (closed) made.close();
      else loaded = made;
      return made;
    }));
  return {
    async route(socket) {
      const ready = await server().catch((error: unknown) => {
        onError(error);
        throw error;
      });
      ready.injectConnection(socket);
    },
    close() {
      closed = true;
      loaded?.close();
      loaded = undefined;
    },
  };
}
