import type { Db } from '../../db/database.js';

/** The tables that record challenges already answered (passkeys', and the two-factor login's), each until it expires. */
export type UsedChallenges = 'passkeyChallengesUsed' | 'loginChallengesUsed';

/**
 * Takes a challenge answered now: true the first time, false when it was taken before (a replay), in whichever process
 * asks: the insert is the decision. Rows are kept until the challenge would have expired, then swept by the next take.
 */
export async function takeChallenge(
  db: Db,
  table: UsedChallenges,
  challenge: string,
  expiresAt: number,
  now: number,
): Promise<boolean> {
  await db.deleteFrom(table).where('expiresAt', '<=', now).execute();
  const result = await db
    .insertInto(table)
    .values({ challenge, expiresAt })
    .onConflict((oc) => oc.column('challenge').doNothing())
    .executeTakeFirst();
  return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
}
