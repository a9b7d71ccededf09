/**
 * The one parser of settings (environment variables). Every reader takes the environment and
 * a variable's name and answers undefined when the variable is unset or empty, so the caller
 * states its default with `??` beside the name. Any other value it cannot read throws a
 * `ConfigError` naming the variable and what it expects: a bad setting stops the function at
 * its first read instead of running on a guess (infra/README.md#configuration).
 *
 * Readers read nothing until called: a module reads its section where it did before (at load,
 * on first use or per invocation), this module adds no work to a cold start.
 */

/**
 * The environment as a map of settings. Modules that read a section of settings take it as a
 * parameter, which their tests replace; `environment()` is the live one, so the next read
 * sees a value a test has changed.
 */
export type Environment = Readonly<Record<string, string | undefined>>;

/** The process environment: the default of the section readers, and what a child process inherits. */
export const environment = (): Environment => process.env;

/** A setting that is missing or cannot be read; the message names the variable and what to set. */
export class ConfigError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ConfigError";
  }
}

/** The variable's value, undefined when unset or empty (an empty value means the default). */
function rawValue(env: Environment, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw === "" ? undefined : raw;
}

/** Long values (a JSON object) are cut in the message: the variable's name says where the rest is. */
function invalid(name: string, expected: string, raw: string, cause?: unknown): never {
  const shown = raw.length > 80 ? `${raw.slice(0, 77)}...` : raw;
  throw new ConfigError(`${name} must be ${expected} (got ${JSON.stringify(shown)})`, { cause });
}

/** Inclusive bounds of an integer setting. */
export interface IntegerBounds {
  min?: number;
  max?: number;
}

/** "a positive integer of at most 604800", "an integer", …: what an integer setting expects. */
function integerExpected({ min, max }: IntegerBounds): string {
  const kind = min === 1 ? "a positive integer" : min === 0 ? "a non-negative integer" : "an integer";
  const atLeast = min !== undefined && min > 1 ? ` of at least ${min}` : "";
  const atMost = max === undefined ? "" : `${atLeast ? " and" : " of"} at most ${max}`;
  return `${kind}${atLeast}${atMost}`;
}

/** A safe integer within `bounds` (inclusive), as `Number` reads it ("1e3" is 1000). */
export function integer(env: Environment, name: string, bounds: IntegerBounds = {}): number | undefined {
  const raw = rawValue(env, name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = bounds;
  if (!Number.isSafeInteger(value) || value < min || value > max) invalid(name, integerExpected(bounds), raw);
  return value;
}

/** An integer of at least 1 (a count, a size in bytes), at most `max` when given. */
export const positiveInt = (env: Environment, name: string, max?: number): number | undefined =>
  integer(env, name, { min: 1, max });

/** A finite number above 0, fractions allowed (a scale such as `0.01`). */
export function positiveNumber(env: Environment, name: string): number | undefined {
  const raw = rawValue(env, name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) invalid(name, "a positive number", raw);
  return value;
}

const MS_PER = { ms: 1, s: 1000 } as const;

/**
 * A duration written as a positive integer of `unit` (the variable's name says which:
 * `_MS`, `_SECONDS`), returned in milliseconds.
 */
export function durationMs(env: Environment, name: string, unit: keyof typeof MS_PER): number | undefined {
  const count = integer(env, name, { min: 1 });
  return count === undefined ? undefined : count * MS_PER[unit];
}

/** A switch: `1` on, `0` off. */
export function flag(env: Environment, name: string): boolean | undefined {
  const raw = rawValue(env, name);
  if (raw === undefined) return undefined;
  if (raw !== "1" && raw !== "0") invalid(name, "1 or 0", raw);
  return raw === "1";
}

/**
 * A JSON object (not an array or null); `example` shows its shape in the message. Its entries
 * are not checked: `T` is what the caller expects of them.
 */
export function jsonObject<T extends object>(env: Environment, name: string, example: string): T | undefined {
  const raw = rawValue(env, name);
  if (raw === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    invalid(name, `a JSON object, e.g. ${example}`, raw, err);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    invalid(name, `a JSON object, e.g. ${example}`, raw);
  return value as T;
}
