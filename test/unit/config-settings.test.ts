import { describe, expect, it } from "vitest";
import {
  ConfigError,
  durationMs,
  flag,
  integer,
  jsonObject,
  positiveInt,
  positiveNumber,
} from "#shared/config/settings.ts";

/** The error a reader throws for `env`, or undefined when it reads. */
function errorOf(read: () => unknown): ConfigError | undefined {
  try {
    read();
    return undefined;
  } catch (err) {
    return err as ConfigError;
  }
}

/** The settings parser (shared/config/settings.ts): unset or empty is the caller's default, anything unreadable throws. */
describe("settings readers", () => {
  it("answer undefined for an unset or empty variable, so the caller's `??` gives the default", () => {
    for (const env of [{}, { X: "" }]) {
      expect(integer(env, "X")).toBeUndefined();
      expect(positiveInt(env, "X")).toBeUndefined();
      expect(positiveNumber(env, "X")).toBeUndefined();
      expect(durationMs(env, "X", "s")).toBeUndefined();
      expect(flag(env, "X")).toBeUndefined();
      expect(jsonObject(env, "X", "{}")).toBeUndefined();
    }
  });

  it("throw one named error whose message names the variable, what it expects and what it got", () => {
    const err = errorOf(() => positiveInt({ PLATEN_X: "abc" }, "PLATEN_X"));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err?.name).toBe("ConfigError");
    expect(err?.message).toBe('PLATEN_X must be a positive integer (got "abc")');
  });

  it("integer: a safe integer within inclusive bounds, said in the message", () => {
    expect(integer({ X: "-42" }, "X")).toBe(-42);
    expect(integer({ X: "1e3" }, "X")).toBe(1000);
    expect(integer({ X: "0" }, "X", { min: 0, max: 65_535 })).toBe(0);
    expect(integer({ X: "65535" }, "X", { min: 0, max: 65_535 })).toBe(65_535);
    expect(errorOf(() => integer({ X: "65536" }, "X", { min: 0, max: 65_535 }))?.message).toBe(
      'X must be a non-negative integer of at most 65535 (got "65536")',
    );
    expect(errorOf(() => integer({ X: "1" }, "X", { min: 2, max: 9 }))?.message).toBe(
      'X must be an integer of at least 2 and at most 9 (got "1")',
    );
    for (const bad of ["1.5", "abc", "9007199254740993", "Infinity"])
      expect(errorOf(() => integer({ X: bad }, "X"))?.message, bad).toBe(`X must be an integer (got "${bad}")`);
  });

  it("positiveInt: at least 1, at most `max` when given", () => {
    expect(positiveInt({ X: "1" }, "X")).toBe(1);
    expect(positiveInt({ X: "604800" }, "X", 604_800)).toBe(604_800);
    for (const bad of ["0", "-5", "1.5", "6MB"])
      expect(errorOf(() => positiveInt({ X: bad }, "X"))?.message, bad).toBe(
        `X must be a positive integer (got "${bad}")`,
      );
    expect(errorOf(() => positiveInt({ X: "604801" }, "X", 604_800))?.message).toBe(
      'X must be a positive integer of at most 604800 (got "604801")',
    );
  });

  it("positiveNumber: fractions allowed, zero and below not", () => {
    expect(positiveNumber({ X: "0.01" }, "X")).toBe(0.01);
    for (const bad of ["0", "-1", "NaN", "fast"])
      expect(errorOf(() => positiveNumber({ X: bad }, "X"))?.message, bad).toBe(
        `X must be a positive number (got "${bad}")`,
      );
  });

  it("durationMs: a positive integer of the variable's unit, in milliseconds", () => {
    expect(durationMs({ X_SECONDS: "60" }, "X_SECONDS", "s")).toBe(60_000);
    expect(durationMs({ X_MS: "1500" }, "X_MS", "ms")).toBe(1500);
    expect(errorOf(() => durationMs({ X_SECONDS: "2.5" }, "X_SECONDS", "s"))?.message).toBe(
      'X_SECONDS must be a positive integer (got "2.5")',
    );
  });

  it("flag: 1 on, 0 off, nothing else", () => {
    expect(flag({ X: "1" }, "X")).toBe(true);
    expect(flag({ X: "0" }, "X")).toBe(false);
    for (const bad of ["true", "yes", "on", "01"])
      expect(errorOf(() => flag({ X: bad }, "X"))?.message, bad).toBe(`X must be 1 or 0 (got "${bad}")`);
  });

  it("jsonObject: an object (not an array, null or a number), the example and the cause in the error", () => {
    expect(jsonObject({ X: '{"sync":5}' }, "X", '{"sync":30}')).toEqual({ sync: 5 });
    for (const bad of ["{sync:5}", "[1]", "null", "5"])
      expect(errorOf(() => jsonObject({ X: bad }, "X", '{"sync":30}'))?.message, bad).toBe(
        `X must be a JSON object, e.g. {"sync":30} (got ${JSON.stringify(bad)})`,
      );
    expect(errorOf(() => jsonObject({ X: "{" }, "X", "{}"))?.cause).toBeInstanceOf(SyntaxError);
    // A long value is cut in the message.
    const long = `{"a":"${"x".repeat(200)}"`;
    expect(errorOf(() => jsonObject({ X: long }, "X", "{}"))?.message.length).toBeLessThan(140);
  });
});
