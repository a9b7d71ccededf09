/**
 * Test files that used to leave things in the temp folder (a ZIP check, CDK synthesis, a
 * stack stopped and SIGKILLed). They run only inside test/integration/tmp-cleanup.test.ts,
 * in a child vitest whose TMPDIR is a fresh folder that must be empty afterwards: the suite's
 * config leaves them out unless {@link TMP_CHECK_ENV} is set, so each runs once per suite.
 */
export const TMP_CHECKED_FILES = [
  "test/unit/zip-stream.test.ts", // zip-*
  "test/infra/definitions-synth.test.ts", // cdk.out* of synthesis
  "test/integration/restart.test.ts", // data dirs; browser profiles after a clean stop and after SIGKILL
];

/**
 * Set (to "1") in the child vitest of tmp-cleanup.test.ts; also how to run one of these files
 * alone: `PLATEN_TMP_CHECK=1 npx vitest run --config test/vitest.config.ts <file>`.
 */
export const TMP_CHECK_ENV = "PLATEN_TMP_CHECK";

/** What the suite's config excludes: the files above, unless this process is the check's child. */
export const tmpCheckedExclusions = (): string[] => (process.env[TMP_CHECK_ENV] ? [] : TMP_CHECKED_FILES);
