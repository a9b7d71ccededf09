import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { signingFixtures } from "./signing-fixtures.ts";

const run = promisify(execFile);

/**
 * A small RFC 3161 time-stamp authority on 127.0.0.1 for the tests: each POSTed TimeStampReq is answered
 * by `openssl ts -reply` with the test TSA's certificate (signing-fixtures.ts). Switches make it fail.
 */
export interface TestTsa {
  url: string;
  /** Requests it received (answered or not). */
  requests(): number;
  /**
   * "ok": answers; "down": 503; "refuse": a granted-less TimeStampResp (rejection); "slow": waits `slowMs`
   * first; "large": answers with the CA's certificate 25 times in the token (about 25 KB, more than a
   * signature's placeholder foresees).
   */
  mode: "ok" | "down" | "refuse" | "slow" | "large";
  slowMs: number;
  close(): Promise<void>;
}

export async function startTestTsa(): Promise<TestTsa> {
  const fixtures = await signingFixtures();
  const work = mkdtempSync(join(fixtures.dir, "tsa-"));
  const largeChain = join(work, "large-chain.pem");
  writeFileSync(largeChain, Buffer.concat(Array.from({ length: 25 }, () => fixtures.caPem)));
  let received = 0;
  let sequence = 0;
  const tsa: TestTsa = {
    url: "",
    requests: () => received,
    mode: "ok",
    slowMs: 0,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer(async (req, res) => {
    received += 1;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    try {
      if (tsa.mode === "down") {
        res.writeHead(503).end("down for the test");
        return;
      }
      if (tsa.mode === "slow") await new Promise((r) => setTimeout(r, tsa.slowMs));
      if (tsa.mode === "refuse") {
        // TimeStampResp { status PKIStatusInfo { status rejection(2) } }
        res.writeHead(200, { "Content-Type": "application/timestamp-reply" }).end(Buffer.from("30053003020102", "hex"));
        return;
      }
      const n = ++sequence;
      const query = join(work, `q${n}.tsq`);
      const reply = join(work, `r${n}.tsr`);
      writeFileSync(query, Buffer.concat(chunks));
      await run("openssl", [
        ...["ts", "-reply", "-config", fixtures.tsa.configPath, "-queryfile", query],
        ...["-signer", fixtures.tsa.certPath, "-inkey", fixtures.tsa.keyPath],
        ...["-chain", tsa.mode === "large" ? largeChain : fixtures.caPath, "-out", reply],
      ]);
      res.writeHead(200, { "Content-Type": "application/timestamp-reply" }).end(readFileSync(reply));
      rmSync(query, { force: true });
      rmSync(reply, { force: true });
    } catch (error) {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  tsa.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/tsa`;
  return tsa;
}
