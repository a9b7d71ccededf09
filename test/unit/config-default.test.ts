import { describe, expect, it } from "vitest";
import { buckets, tables } from "#shared/definitions/index.ts";

/** PLATEN_ENV unset means the strict rules; only `npm start` sets `local`. */
describe("config().env", () => {
  it("defaults to production (no loopback webhook targets) when PLATEN_ENV is unset", async () => {
    const saved = { ...process.env };
    try {
      delete process.env.PLATEN_ENV;
      for (const { envVar } of [...Object.values(tables), ...Object.values(buckets)])
        process.env[envVar] = `t-${envVar}`;
      process.env.PLATEN_BASE_URL = "https://api.example.com/v1";
      const { config } = await import("#shared/aws/config.ts");
      expect(config().env).toBe("production");
      const { checkWebhookUrl } = await import("#shared/webhooks/target-guard.ts");
      expect(checkWebhookUrl("http://127.0.0.1:8080/hook", { env: config().env }).ok).toBe(false);
    } finally {
      process.env = saved;
    }
  });
});
