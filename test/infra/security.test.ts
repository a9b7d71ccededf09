import { beforeAll, describe, expect, it } from "vitest";
import { routes } from "#shared/definitions/index.ts";
import { REQUESTS_PER_ADDRESS_PER_MINUTE } from "../../infra/stack/waf.ts";
import { asArray, statementsByFunction } from "./iam.ts";
import { logicalId, resourcesOfType, SYNTH_TIMEOUT_MS, type Synthesized, synthStack } from "./synth.ts";

let s: Synthesized;

beforeAll(() => {
  s = synthStack({ stage: "prod" });
}, SYNTH_TIMEOUT_MS);

describe("what cdk-nag asked for, as the stack builds it", () => {
  it("puts every REST API stage behind one WAF web ACL with a rate-based rule per source address", () => {
    const acls = resourcesOfType(s.json, "AWS::WAFv2::WebACL");
    expect(acls).toHaveLength(1);
    const [aclId, acl] = acls[0]!;
    expect(acl.Scope).toBe("REGIONAL");
    const rate = acl.Rules.find((r: { Name: string }) => r.Name === "rate-per-source-address");
    expect(rate.Action).toEqual({ Block: {} });
    expect(rate.Statement.RateBasedStatement).toEqual({
      AggregateKeyType: "IP",
      Limit: REQUESTS_PER_ADDRESS_PER_MINUTE,
      EvaluationWindowSec: 60,
    });
    const stages = resourcesOfType(s.json, "AWS::ApiGateway::Stage").map(([id]) => id);
    const associated = resourcesOfType(s.json, "AWS::WAFv2::WebACLAssociation").map(([, p]) => {
      expect(p.WebACLArn).toEqual({ "Fn::GetAtt": [aclId, "Arn"] });
      return JSON.stringify(p.ResourceArn);
    });
    expect(stages.length).toBeGreaterThan(1);
    for (const stage of stages)
      expect(
        associated.some((arn) => arn.includes(`"${stage}"`)),
        stage,
      ).toBe(true);
  });

  it("validates the JSON bodies the route table knows, and only those", () => {
    const methods = resourcesOfType(s.json, "AWS::ApiGateway::Method").filter(([, p]) => p.HttpMethod === "POST");
    const validated = methods.filter(([, p]) => p.RequestValidatorId).length;
    expect(validated).toBe(routes.filter((r) => r.jsonBody).length);
    const [[, validator]] = resourcesOfType(s.json, "AWS::ApiGateway::RequestValidator");
    expect(validator).toMatchObject({ ValidateRequestBody: true });
    const [[, model]] = resourcesOfType(s.json, "AWS::ApiGateway::Model");
    expect(model.Schema).toMatchObject({ type: "object" });
  });

  it("gives every function a customer-managed policy for its own log group, no AWS-managed policy", () => {
    for (const [, role] of resourcesOfType(s.json, "AWS::IAM::Role").filter(([id]) => id.includes("Functions"))) {
      for (const arn of asArray(role.ManagedPolicyArns)) expect(JSON.stringify(arn)).not.toContain("iam::aws:policy");
    }
    const logs = resourcesOfType(s.json, "AWS::IAM::ManagedPolicy");
    // Plus the static-assets upload's role, made the same way (infra/stack/static-assets.ts).
    expect(logs.length).toBe(Object.keys(s.stack.functions).length + 1);
    for (const [, policy] of logs) {
      const [statement] = policy.PolicyDocument.Statement;
      expect(statement.Action).toEqual(["logs:CreateLogStream", "logs:PutLogEvents"]);
      expect(statement.Resource["Fn::GetAtt"][1]).toBe("Arn");
    }
  });

  it("names table indexes instead of index/* and grants no S3 action wildcard", () => {
    for (const [name, statements] of statementsByFunction(s.json)) {
      for (const st of statements) {
        for (const action of asArray(st.Action))
          expect(action.includes("*") && action.startsWith("s3:"), `${name} ${action}`).toBe(false);
        expect(JSON.stringify(st.Resource ?? ""), name).not.toContain("/index/*");
      }
    }
    const requests = logicalId(s.stack, s.stack.data.tables.requests!.table);
    const withIndex = [...statementsByFunction(s.json).values()]
      .flat()
      .some(
        (st) =>
          JSON.stringify(st.Resource).includes(`${requests}`) && JSON.stringify(st.Resource).includes("/index/active"),
      );
    expect(withIndex).toBe(true);
  });

  it("logs gateway-side errors of the main API without request data", () => {
    const main = logicalId(s.stack, s.stack.api.restApi);
    const [, stage] = resourcesOfType(s.json, "AWS::ApiGateway::Stage").find(([, p]) => p.RestApiId.Ref === main)!;
    expect(stage.MethodSettings).toEqual([expect.objectContaining({ LoggingLevel: "ERROR", DataTraceEnabled: false })]);
  });
});
