/**
 * @module peer/task-list
 * ListTasks over the reference peer's kept tasks (A2A v1.0 §3.1.4; docs/design.md §4): newest
 * first, filtered by context, state and status time, paged with an offset `pageToken`.
 */
import type { ListTasksParams, ListTasksResult, Task } from '../protocol/types.js';
import { RpcFailure } from './rpc-failure.js';

/** One page of `tasks` (kept in creation order); `view` renders one task. */
export function listTaskPage<R extends { task: Task }>(
  tasks: Iterable<R>,
  params: ListTasksParams,
  view: (rec: R) => Task,
): ListTasksResult {
  const after = params.statusTimestampAfter === undefined ? undefined : Date.parse(params.statusTimestampAfter);
  const all = [...tasks]
    .reverse()
    .filter((r) => params.contextId === undefined || r.task.contextId === params.contextId)
    .filter((r) => params.status === undefined || r.task.status.state === params.status)
    .filter((r) => after === undefined || Date.parse(r.task.status.timestamp ?? '') > after);
  const pageSize = params.pageSize ?? 50;
  let offset = 0;
  if (params.pageToken !== undefined && params.pageToken !== '') {
    if (!/^\d+$/.test(params.pageToken) || Number(params.pageToken) > all.length) {
      throw new RpcFailure(
        'INVALID_PARAMS',
        `params.pageToken: expected a token from a previous ListTasks; got ${JSON.stringify(params.pageToken)}`,
      );
    }
    offset = Number(params.pageToken);
  }
  const page = all.slice(offset, offset + pageSize);
  const end = offset + page.length;
  return {
    tasks: page.map(view),
    nextPageToken: end < all.length ? String(end) : '',
    pageSize,
    totalSize: all.length,
  };
}
