/**
 * @module http/keep-alive
 * How long this project's HTTP clients (the recorder's upstream, `run`'s peer) keep an idle
 * kept-alive connection: below the 5 s that node:http servers (and many others) wait before they
 * close an idle connection, so no request goes out on a connection the server is closing at that
 * instant (it would fail with ECONNRESET although the server never read it). Given as an agent's
 * `timeout`, which Node acts on only for idle connections, and which makes Node honour a server's
 * `Keep-Alive: timeout=N` hint too (closing a second before it).
 */
export const IDLE_CONNECTION_MS = 4000;
