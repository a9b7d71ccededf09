import { beforeAll, describe, expect, it } from "vitest";
import { functions } from "#shared/definitions/index.ts";
import { allows, type Statement, statementsByFunction } from "./iam.ts";
import { logicalId, resourcesOfType, SYNTH_TIMEOUT_MS, type Synthesized, synthStack } from "./synth.ts";

/**
 * The stack's side of signing (shared/signing/README.md#identities): one KMS key with rotation that seals
 * identities' keys, data keys asked for only by the function that adds identities, decryption only by the
 * functions that sign, and the time-stamp authority given as context and checked at synth.
 */
let s: Synthesized;
let byFunction: Map<string, Statement[]>;

beforeAll(() => {
  s = synthStack({ timestamps: { tsaUrl: "https://tsa.example.com/tsr", tsaPolicyOid: "1.2.3.4" } });
  byFunction = statementsByFunction(s.json);
}, SYNTH_TIMEOUT_MS);

const env = (id: string) =>
  s.json.Resources[logicalId(s.stack, s.stack.functions[id]!.fn)]!.Properties!.Environment.Variables;
const keyId = () => logicalId(s.stack, s.stack.data.signingKeys!);

describe("signing keys in the stack", () => {
  it("is one KMS key with yearly rotation", () => {
    const keys = resourcesOfType(s.json, "AWS::KMS::Key");
    expect(keys).toHaveLength(1);
    expect(keys[0]![1].EnableKeyRotation).toBe(true);
  });

  it("lets only create-signing-identity ask for data keys, and only the signing functions decrypt", () => {
    for (const def of Object.values(functions)) {
      const statements = byFunction.get(`platen-dev-${def.id}`) ?? [];
      expect(allows(statements, "kms:GenerateDataKey", keyId()), def.id).toBe(def.id === "create-signing-identity");
      expect(allows(statements, "kms:Decrypt", keyId()), def.id).toBe(
        def.id === "generate-sync" || def.id === "render",
      );
      expect(allows(statements, "kms:Encrypt", keyId()), def.id).toBe(false);
    }
    for (const id of ["create-signing-identity", "generate-sync", "render"])
      expect(env(id).PLATEN_SIGNING_KMS_KEY_ID).toEqual({ "Fn::GetAtt": [keyId(), "Arn"] });
    expect(env("list-designs").PLATEN_SIGNING_KMS_KEY_ID).toBeUndefined();
  });

  it("gives the functions the TSA of the context, and refuses a malformed one at synth", () => {
    expect(env("render")).toMatchObject({
      PLATEN_TSA_URL: "https://tsa.example.com/tsr",
      PLATEN_TSA_POLICY: "1.2.3.4",
    });
    expect(env("generate-sync").PLATEN_TSA_URL).toBe("https://tsa.example.com/tsr");
    expect(() => synthStack({ timestamps: { tsaUrl: "tsa.example.com" } })).toThrow("PLATEN_TSA_URL");
  });
});
