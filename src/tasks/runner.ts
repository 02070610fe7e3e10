// The task runner: claims one task at a time from the tasks table, holds its lease while the handler
// works, and records how the handler ended. Any number of runners, in any number of processes, may
// share one database: the claim is exclusive and every write is conditional on holding the lease.
// Status changes go through task-transitions.ts, which records their webhook events with them.
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import type { Context } from '../context.ts';
import type { TaskRow } from '../db/types.ts';
import * as tasks from '../repositories/tasks.repository.ts';
import * as transitions from '../services/task-transitions.ts';
import { type TaskHandler, TaskFailure, TaskInterrupted, type TaskProgress, type TaskRun } from './handler.ts';

export interface TaskRunnerOptions {
  handlers: Record<string, TaskHandler>;
  /** The name this runner's leases carry; unique per runner. */
  owner?: string;
  /** How long to wait before looking again when the queue is empty. */
  pollMs?: number;
  /** How long a claim lasts without renewal; a worker that stops renewing loses its task after this. */
  leaseMs?: number;
  /** How long `stop()` waits for the running handler to reach a checkpoint before leaving it. */
  handBackMs?: number;
}

export interface TaskRunner {
  readonly owner: string;
  /**
   * Stops claiming and hands the running task back: at its next checkpoint the handler is interrupted
   * and the task returns to the queue, so another worker takes it up at once.
   */
  stop(): Promise<void>;
}

const DEFAULT_POLL_MS = 1000;
/** How long after a task is queued in this process the runner looks for it. */
const QUEUED_SETTLE_MS = 100;
const DEFAULT_LEASE_MS = 30_000;
const DEFAULT_HAND_BACK_MS = 10_000;
/** A checkpoint that only reports progress writes at most this often; a meta patch is written at once. */
const PROGRESS_WRITE_MS = 200;

const INTERNAL_MESSAGE = 'the task failed because of an internal error';

export function defaultOwner(): string {
  return `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

export function startTaskRunner(ctx: Context, log: FastifyBaseLogger, options: TaskRunnerOptions): TaskRunner {
  const handlers = options.handlers;
  if (Object.keys(handlers).length === 0) throw new Error('the task runner needs at least one task handler');
  const owner = options.owner ?? defaultOwner();
  const pollMs = options.pollMs ?? DEFAULT_POLL_MS;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const handBackMs = options.handBackMs ?? DEFAULT_HAND_BACK_MS;
  const db = ctx.db.kysely;

  let stopping = false;
  let wake: () => void = () => undefined;
  /** Set while a task runs: tells it to hand itself back. */
  let handBack: (() => void) | null = null;

  /** A task was queued in this process since the last claim: look again without waiting. */
  let queued = false;
  let settling: NodeJS.Timeout | undefined;
  const stopListening = ctx.tasksQueued.listen(() => {
    // After a moment: the request that queued the task is answered first, and a large one's memory
    // is collected (see heap-growth.ts) before the task reads its input.
    clearTimeout(settling);
    settling = setTimeout(() => {
      queued = true;
      wake();
    }, QUEUED_SETTLE_MS);
    settling.unref();
  });

  const idle = () =>
    new Promise<void>((resolve) => {
      if (stopping || queued) return resolve();
      const timer = setTimeout(resolve, pollMs);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  async function runTask(row: TaskRow): Promise<void> {
    const taskLog = log.child({ taskId: row.id, taskType: row.type, attempt: row.attempts });
    const meta = tasks.parseDocument(row.meta);
    const handler = Object.hasOwn(handlers, row.type) ? handlers[row.type] : undefined;
    if (!handler) {
      meta.error = { code: 'UNKNOWN_TASK_TYPE', message: `no handler for task type "${row.type}"` };
      await transitions.finishTask(db, { id: row.id, owner, status: 'error', meta });
      taskLog.error('task of an unknown type');
      return;
    }

    const input = await tasks.loadInput(db, row.id);
    let leaseLost = false;
    let stopRequested = row.stop_requested === 1;
    let handingBack = false;
    let lastWrite = Date.now();

    const renew = async (withMeta: boolean) => {
      const result = await tasks.renewLease(db, { id: row.id, owner, leaseMs, ...(withMeta ? { meta } : {}) });
      if (result === false) leaseLost = true;
      else if (result.stopRequested) stopRequested = true;
      if (withMeta) lastWrite = Date.now();
    };

    let beating: Promise<void> | null = null;
    const heartbeat = setInterval(() => {
      if (beating || leaseLost) return;
      beating = renew(false)
        .catch((error: unknown) => taskLog.warn({ err: error }, 'task lease renewal failed'))
        .finally(() => {
          beating = null;
        });
    }, Math.max(1, Math.floor(leaseMs / 3)));

    const interruption = (): TaskInterrupted | null => {
      // A hand-back reads as a lost lease to the handler: another worker takes the task over.
      if (leaseLost || handingBack) return new TaskInterrupted('lease-lost');
      if (stopRequested) return new TaskInterrupted('stop-requested');
      return null;
    };

    const run: TaskRun = {
      ctx,
      taskId: row.id,
      teamId: row.team_id,
      userId: row.created_by,
      attempt: row.attempts,
      input,
      get meta() {
        return meta;
      },
      async checkpoint(progress?: TaskProgress, patch?: Record<string, unknown>) {
        if (leaseLost) throw new TaskInterrupted('lease-lost');
        if (progress) meta.progress = { done: progress.done, total: progress.total };
        if (patch) Object.assign(meta, patch);
        if (patch || handingBack || stopRequested || Date.now() - lastWrite >= PROGRESS_WRITE_MS) {
          try {
            await renew(true);
          } catch (error) {
            // A missed progress write is made good by the next one; a patch must not be lost.
            if (patch) throw error;
            taskLog.warn({ err: error }, 'task progress write failed');
          }
        }
        const stop = interruption();
        if (stop) throw stop;
      },
      async fenceLease(trx) {
        if (leaseLost || !(await tasks.fenceLease(trx, { id: row.id, owner }))) {
          leaseLost = true;
          throw new TaskInterrupted('lease-lost');
        }
      },
      async updateMeta(patch: Record<string, unknown>) {
        if (leaseLost) throw new TaskInterrupted('lease-lost');
        Object.assign(meta, patch);
        await renew(true);
        if (leaseLost) throw new TaskInterrupted('lease-lost');
      },
    };

    let handBackTimer: NodeJS.Timeout | undefined;
    const handBackDeadline = new Promise<'deadline'>((resolve) => {
      handBack = () => {
        if (handingBack) return;
        handingBack = true;
        handBackTimer = setTimeout(() => resolve('deadline'), handBackMs);
      };
    });
    if (stopping) handBack?.();
    const outcome = Promise.resolve()
      .then(() => handler(run))
      .then(
        () => ({ ok: true as const }),
        (error: unknown) => ({ ok: false as const, error }),
      );

    try {
      const result = await Promise.race([outcome, handBackDeadline]);
      if (result === 'deadline') {
        // The handler did not reach a checkpoint in time. It is left behind: without renewals its lease
        // runs out and another worker takes the task up as a new attempt.
        leaseLost = true;
        taskLog.warn('task did not reach a checkpoint before shutdown; its lease will expire');
        return;
      }
      await settle(row.id, meta, result, { leaseLost, handingBack }, taskLog);
    } finally {
      clearInterval(heartbeat);
      clearTimeout(handBackTimer);
      handBack = null;
      await beating;
    }
  }

  /** Records how the handler ended; every write is conditional on still holding the lease. */
  async function settle(
    id: number,
    meta: Record<string, unknown>,
    result: { ok: true } | { ok: false; error: unknown },
    state: { leaseLost: boolean; handingBack: boolean },
    taskLog: FastifyBaseLogger,
  ): Promise<void> {
    const finish = async (status: 'finished' | 'stopped' | 'error') => {
      if (await transitions.finishTask(db, { id, owner, status, meta })) taskLog.info(`task ${status}`);
      else taskLog.warn(`task ${status}, but its lease was lost first`);
    };
    if (result.ok) return finish('finished');
    const error = result.error;
    if (error instanceof TaskInterrupted) {
      if (state.leaseLost) {
        taskLog.warn('task lease lost; another worker may have it');
      } else if (state.handingBack) {
        if (await transitions.releaseTask(db, { id, owner, meta })) taskLog.info('task handed back');
      } else if (error.reason === 'stop-requested') {
        await finish('stopped');
      } else {
        taskLog.warn('task interrupted without a reason the runner knows; it stays leased until expiry');
      }
      return;
    }
    if (error instanceof TaskFailure) {
      meta.error = { code: error.code, message: error.message };
      taskLog.warn({ code: error.code, reason: error.message }, 'task failed');
    } else {
      meta.error = { code: 'INTERNAL', message: INTERNAL_MESSAGE };
      taskLog.error({ err: error }, 'task failed unexpectedly');
    }
    await finish('error');
  }

  async function loop(): Promise<void> {
    while (!stopping) {
      let row: TaskRow | undefined;
      queued = false;
      try {
        row = await transitions.claimTask(db, { owner, leaseMs });
      } catch (error) {
        log.error({ err: error }, 'task claim failed');
      }
      if (!row) {
        await idle();
        continue;
      }
      const claimed = row;
      if (stopping) {
        // Claimed while stop() was called: give it straight back rather than start it.
        await transitions.releaseTask(db, { id: claimed.id, owner, meta: tasks.parseDocument(claimed.meta) }).catch((error: unknown) =>
          log.error({ err: error, taskId: claimed.id }, 'task hand-back failed; the task lease will expire'),
        );
        break;
      }
      await runTask(claimed).catch((error: unknown) =>
        log.error({ err: error, taskId: claimed.id }, 'task bookkeeping failed; the task lease will expire'),
      );
    }
  }

  const looping = loop();

  return {
    owner,
    async stop() {
      stopping = true;
      stopListening();
      clearTimeout(settling);
      wake();
      handBack?.();
      await looping;
    },
  };
}
