import { beforeAll, describe, expect, it } from "vitest";
import { functions, routes } from "#shared/definitions/index.ts";
import { allows, type Statement, statementsByFunction } from "./iam.ts";
import { logicalId, resourcesOfType, SYNTH_TIMEOUT_MS, type Synthesized, synthStack } from "./synth.ts";

let s: Synthesized;
let byFunction: Map<string, Statement[]>;

beforeAll(() => {
  s = synthStack();
  byFunction = statementsByFunction(s.json);
}, SYNTH_TIMEOUT_MS);

const lambda = (id: string) => s.json.Resources[logicalId(s.stack, s.stack.functions[id]!.fn)]!.Properties!;
const tableId = (id: string) => logicalId(s.stack, s.stack.data.tables[id]!.table);
const secretId = () => logicalId(s.stack, s.stack.data.identityKeys!);

describe("{auth_url}", () => {
  it("serves every path of its own RestApi from the auth function", () => {
    const api = resourcesOfType(s.json, "AWS::ApiGateway::RestApi").find(([, p]) => p.Name === "platen-dev-auth");
    expect(api).toBeDefined();
    const authFn = logicalId(s.stack, s.stack.functions.auth!.fn);
    const methods = resourcesOfType(s.json, "AWS::ApiGateway::Method").filter(([, p]) => p.RestApiId?.Ref === api![0]);
    expect(methods.map(([, p]) => p.HttpMethod).filter((m) => m === "ANY")).toHaveLength(2); // `/` and `/{proxy+}`
    for (const [, p] of methods.filter(([, m]) => m.HttpMethod === "ANY")) {
      expect(JSON.stringify(p.Integration.Uri)).toContain(authFn);
      expect(p.Integration.Type).toBe("AWS_PROXY");
    }
  });

  it("keeps the key seeds in a generated Secrets Manager secret that only the auth function reads", () => {
    const [[, secret]] = resourcesOfType(s.json, "AWS::SecretsManager::Secret") as [
      [string, Record<string, { GenerateStringKey?: string; PasswordLength?: number }>],
    ];
    expect(secret.GenerateSecretString).toMatchObject({ GenerateStringKey: "seed", PasswordLength: 64 });
    // Besides auth, only what verifies login-session cookies reads it: the site (app) and the management routes.
    const sessionRoutes = new Set(
      routes.filter((r) => r.auth === "bearer-or-session").map((r) => r.function as string),
    );
    expect(sessionRoutes.size).toBeGreaterThan(0);
    for (const def of Object.values(functions)) {
      const reads = allows(byFunction.get(`platen-dev-${def.id}`) ?? [], "secretsmanager:GetSecretValue", secretId());
      expect(reads, def.id).toBe(def.id === "auth" || def.id === "site" || sessionRoutes.has(def.id));
    }
    expect(lambda("auth").Environment.Variables.PLATEN_IDENTITY_SECRET_ID).toEqual({ Ref: secretId() });
  });

  it("lets the auth function write only the oauth table; users and clients stay read-only there", () => {
    const statements = byFunction.get("platen-dev-auth")!;
    expect(allows(statements, "dynamodb:PutItem", tableId("oauth"))).toBe(true);
    expect(allows(statements, "dynamodb:GetItem", tableId("identity"))).toBe(true);
    for (const t of ["identity", "workspaces", "designs", "requests", "files", "usage", "webhooks"]) {
      expect(allows(statements, "dynamodb:PutItem", tableId(t)), t).toBe(false);
    }
  });

  it("lets every authenticating API function read (never write) identity and oauth for Bearer checks", () => {
    const authenticating = new Set(routes.filter((r) => r.auth !== "none").map((r) => r.function as string));
    for (const def of Object.values(functions).filter((f) => authenticating.has(f.id))) {
      const statements = byFunction.get(`platen-dev-${def.id}`)!;
      for (const t of ["identity", "oauth"]) {
        expect(allows(statements, "dynamodb:GetItem", tableId(t)), `${def.id} reads ${t}`).toBe(true);
        expect(allows(statements, "dynamodb:PutItem", tableId(t)), `${def.id} writes ${t}`).toBe(false);
      }
    }
  });

  it("gives every function the auth URL the API verifies tokens against", () => {
    for (const def of Object.values(functions))
      expect(JSON.stringify(lambda(def.id).Environment.Variables.PLATEN_AUTH_URL), def.id).toContain("execute-api");
  });
});
