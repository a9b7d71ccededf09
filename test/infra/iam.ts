import type { TemplateJson, Cfn } from "./synth.ts";

/** One IAM policy statement as it appears in the template. */
export interface Statement {
  Effect: "Allow" | "Deny";
  Action: string | string[];
  Resource?: unknown;
  Condition?: unknown;
  Principal?: unknown;
}

/** A statement's resource reduced to the logical id it points at plus the literal suffix. */
export interface ResourceRef {
  logicalId: string | undefined;
  suffix: string;
}

const asArray = <T>(value: T | T[] | undefined): T[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

/** Every policy statement of the template: role policies, inline policies, resource policies. */
export function allStatements(json: TemplateJson): Statement[] {
  const out: Statement[] = [];
  for (const resource of Object.values(json.Resources)) {
    const p = resource.Properties ?? {};
    if (p.PolicyDocument) out.push(...asArray<Statement>(p.PolicyDocument.Statement));
    for (const policy of asArray<{ PolicyDocument: { Statement: Statement[] } }>(p.Policies)) {
      out.push(...asArray(policy.PolicyDocument.Statement));
    }
  }
  return out;
}

/** Role logical id → the statements of the policies attached to it. */
export function statementsByRole(json: TemplateJson): Map<string, Statement[]> {
  const byRole = new Map<string, Statement[]>();
  const add = (role: string, statements: Statement[]) => byRole.set(role, [...(byRole.get(role) ?? []), ...statements]);
  for (const [id, r] of Object.entries(json.Resources)) {
    const p = r.Properties ?? {};
    if (r.Type === "AWS::IAM::Policy") {
      for (const role of asArray<{ Ref: string }>(p.Roles)) add(role.Ref, asArray(p.PolicyDocument.Statement));
    }
    if (r.Type === "AWS::IAM::Role") {
      add(
        id,
        asArray<{ PolicyDocument: { Statement: Statement[] } }>(p.Policies).flatMap((x) =>
          asArray(x.PolicyDocument.Statement),
        ),
      );
    }
  }
  return byRole;
}

/** Lambda FunctionName → the statements of its execution role. */
export function statementsByFunction(json: TemplateJson): Map<string, Statement[]> {
  const byRole = statementsByRole(json);
  const out = new Map<string, Statement[]>();
  for (const r of Object.values(json.Resources)) {
    if (r.Type !== "AWS::Lambda::Function") continue;
    const props = r.Properties ?? {};
    const role = (props.Role as { "Fn::GetAtt": [string, string] })["Fn::GetAtt"][0];
    out.set(String(props.FunctionName), byRole.get(role) ?? []);
  }
  return out;
}

/** Resolves `Ref`, `Fn::GetAtt` and `Fn::Join` (ARN + "/*") to the logical id they name. */
export function resolveResource(value: unknown): ResourceRef {
  if (typeof value === "string") return { logicalId: undefined, suffix: value };
  const v = value as Record<string, Cfn>;
  if (v.Ref) return { logicalId: v.Ref, suffix: "" };
  if (v["Fn::GetAtt"]) return { logicalId: v["Fn::GetAtt"][0], suffix: "" };
  if (v["Fn::Join"]) {
    const parts = v["Fn::Join"][1] as unknown[];
    const ref = parts.map(resolveResource).find((p) => p.logicalId);
    const suffix = parts.filter((p): p is string => typeof p === "string").join(v["Fn::Join"][0]);
    return { logicalId: ref?.logicalId, suffix };
  }
  return { logicalId: undefined, suffix: JSON.stringify(value) };
}

/** IAM action matching with `*` wildcards (`s3:GetObject*` covers `s3:GetObject`). */
export function actionMatches(pattern: string, action: string): boolean {
  const regex = new RegExp(
    `^${pattern
      .split("*")
      .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
    "i",
  );
  return regex.test(action);
}

/**
 * Whether the statements allow `action` on the resource with `logicalId` (any ARN form:
 * the resource itself, `/*` objects, `/index/*`).
 */
export function allows(statements: Statement[], action: string, logicalId: string): boolean {
  return statements.some(
    (s) =>
      s.Effect === "Allow" &&
      asArray(s.Action).some((a) => actionMatches(a, action)) &&
      asArray(s.Resource).some((r) => r === "*" || resolveResource(r).logicalId === logicalId),
  );
}

export { asArray };
