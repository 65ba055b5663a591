/**
 * Building blocks of the response schemas, and the compile-time check that ties a schema to the
 * type of what the code sends: `assertSame<CodeType, Static<typeof Schema>>(true)` compiles only
 * while each type is assignable to the other, so a field added, removed or retyped on one side
 * and not the other fails `tsc -b` (and therefore `npm test`).
 */
import { Type, type TSchema } from '@sinclair/typebox';

/** `true` when `A` and `B` are assignable to each other, else `false`. */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** What an async function resolves to. */
export type Returned<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;

/** Compiles only when `Same<A, B>` is `true` (the argument must be the literal `true`). */
export function assertSame<A, B>(proof: Same<A, B>): void {
  void proof;
}

export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/** An ISO 8601 instant. */
export const Timestamp = Type.String({ format: 'date-time' });
/** A day, `YYYY-MM-DD`. */
export const Day = Type.String({ format: 'date' });
/** A count. */
export const Count = Type.Integer({ minimum: 0 });

export const PaginationSchema = Type.Object({
  total: Count,
  limit: Type.Integer({ minimum: 1 }),
  offset: Count,
  hasMore: Type.Boolean(),
});
