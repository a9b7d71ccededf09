/**
 * `false` in the deployed bundles only: infra/stack/function-bundle.ts has esbuild define
 * `globalThis.__PLATEN_TEST_HOOKS__` as `false`, so code guarded by
 * `globalThis.__PLATEN_TEST_HOOKS__ !== false` (fault injection, the movable service clock)
 * folds to dead code and is left out of every Lambda. Where the sources run (the local
 * stack, the tests, the admin CLI) it is undefined and the hooks are there, off until the
 * local stack's test hooks switch them on. The guard must stay this literal expression at
 * each use: esbuild replaces the expression, not a variable holding it.
 */
declare var __PLATEN_TEST_HOOKS__: false | undefined;
