import type { Db } from '../../db/database.js';
import { publish } from '../../live/events.js';

/** A batch task was started, claimed, moved a chunk, finished or was cancelled: admins' task screens read it again. */
export const taskMoved = (trx: Db, taskId: number) => publish(trx, { kind: 'task', taskId }, { admins: true });
