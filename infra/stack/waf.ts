import type { RestApi } from "aws-cdk-lib/aws-apigateway";
import { CfnWebACL, CfnWebACLAssociation } from "aws-cdk-lib/aws-wafv2";
import { Construct } from "constructs";
import type { StageSettings } from "./stage.ts";

/**
 * Requests one source address may send in a minute before WAF blocks it for a while.
 * Above the sum of the per-workspace rates (shared/limits/README.md#rate-limits) (30 + 100 + 100 + 300 =
 * 530/min), so one busy workspace behind one address is never blocked by WAF first; the per-workspace
 * limits (429 RATE_LIMITED) stay the precise ones. This stops floods from one address,
 * including unauthenticated ones that never reach a workspace's counter.
 */
export const REQUESTS_PER_ADDRESS_PER_MINUTE = 1_000;

/** AWS managed rule groups that cannot misfire on generation bodies (no body-size rules). */
const MANAGED_RULE_GROUPS = ["AWSManagedRulesAmazonIpReputationList", "AWSManagedRulesKnownBadInputsRuleSet"];

/**
 * One regional web ACL in front of every REST API stage of the stack: a rate-based rule
 * per source address, then AWS's IP-reputation and known-bad-inputs lists. The common rule
 * set is left out on purpose: its 8 KB body limit would block ordinary generation requests
 * (bodies up to 50 MB, shared/limits/README.md#service-limits).
 */
export class PlatenWaf extends Construct {
  readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, settings: StageSettings) {
    super(scope, id);
    const visibility = (metricName: string) => ({
      cloudWatchMetricsEnabled: true,
      sampledRequestsEnabled: true,
      metricName,
    });
    this.webAcl = new CfnWebACL(this, "WebAcl", {
      name: `${settings.prefix}-api`,
      scope: "REGIONAL",
      defaultAction: { allow: {} },
      visibilityConfig: visibility(`${settings.prefix}-api`),
      rules: [
        {
          name: "rate-per-source-address",
          priority: 0,
          action: { block: {} },
          statement: {
            rateBasedStatement: {
              aggregateKeyType: "IP",
              limit: REQUESTS_PER_ADDRESS_PER_MINUTE,
              evaluationWindowSec: 60,
            },
          },
          visibilityConfig: visibility(`${settings.prefix}-rate-per-address`),
        },
        ...MANAGED_RULE_GROUPS.map((name, i) => ({
          name,
          priority: i + 1,
          overrideAction: { none: {} },
          statement: { managedRuleGroupStatement: { vendorName: "AWS", name } },
          visibilityConfig: visibility(`${settings.prefix}-${name}`),
        })),
      ],
    });
  }

  /** Puts the web ACL in front of the deployed stage of `api`. */
  protect(api: RestApi): void {
    const association = new CfnWebACLAssociation(this, `${api.node.id}${api.node.addr.slice(0, 8)}`, {
      resourceArn: api.deploymentStage.stageArn,
      webAclArn: this.webAcl.attrArn,
    });
    association.node.addDependency(api.deploymentStage);
  }
}
