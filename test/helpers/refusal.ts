import { expect } from "vitest";
import { PlatenError } from "#shared/errors/platen-error.ts";

/** The PlatenError a rule refuses with (fails the test if it resolves or throws anything else). */
export async function refusal(promise: Promise<unknown>): Promise<PlatenError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PlatenError);
  return err as PlatenError;
}
