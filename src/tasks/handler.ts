// The contract between the task runner and the code of each task type.
import type { Kysely } from 'kysely';
import type { Context } from '../context.ts';
import type { Database } from '../db/types.ts';

export interface TaskProgress {
  done: number;
  total: number;
}

/** Thrown by `checkpoint` when the task must stop: a stop was requested, or the lease was lost. */
export class TaskInterrupted extends Error {
  readonly reason: 'stop-requested' | 'lease-lost';
  constructor(reason: 'stop-requested' | 'lease-lost') {
    super(reason === 'stop-requested' ? 'the task was asked to stop' : 'the task lease was lost');
    this.name = 'TaskInterrupted';
    this.reason = reason;
  }
}

/** A failure the handler reports as the task's `meta.error` (anything else reads as INTERNAL). */
export class TaskFailure extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'TaskFailure';
    this.code = code;
  }
}

export interface TaskRun {
  readonly ctx: Context;
  readonly taskId: number;
  readonly teamId: number;
  readonly userId: number | null;
  /** How many times this task has been claimed, this run included (more than 1 means a resume). */
  readonly attempt: number;
  /** The handler's input as stored when the task was created. */
  readonly input: unknown;
  /** The task's public meta as it stands (a resumed task sees what an earlier attempt wrote). */
  readonly meta: Record<string, unknown>;
  /**
   * Records progress and merges `patch` into the public meta, then throws TaskInterrupted if the task
   * must stop. Call between units of work, after each unit is committed.
   */
  checkpoint(progress?: TaskProgress, patch?: Record<string, unknown>): Promise<void>;
  /** Merges `patch` into the public meta without a stop check. */
  updateMeta(patch: Record<string, unknown>): Promise<void>;
  /**
   * Call first inside each transaction that commits the task's work. Throws TaskInterrupted
   * ('lease-lost') unless this run still holds an unexpired lease, and keeps the task row locked until
   * the transaction ends, so no other worker can claim the task while the work commits.
   */
  fenceLease(trx: Kysely<Database>): Promise<void>;
}

/**
 * Runs one task to the end. It must be idempotent: a task whose worker died is run again from the
 * start of its input and must skip what the earlier attempt committed.
 */
export type TaskHandler = (run: TaskRun) => Promise<void>;
