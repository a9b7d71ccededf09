import { DomainName, EndpointType, SecurityPolicy } from "aws-cdk-lib/aws-apigateway";
import { Certificate, type ICertificate } from "aws-cdk-lib/aws-certificatemanager";
import { CfnOutput } from "aws-cdk-lib";
import { Construct } from "constructs";

/** Optional custom domains (context `baseDomain`, `authDomain`, `siteDomain`, `certificateArn`). */
export interface CustomDomains {
  baseDomain?: string;
  authDomain?: string;
  siteDomain?: string;
  /** Regional ACM certificate covering every domain given (e.g. a wildcard). */
  certificateArn?: string;
}

/**
 * Regional API Gateway custom domains. Created with TLS 1.2 and regional endpoints because
 * the multi-level base path `v1/health` (ApiGatewayV2 ApiMapping) requires both. DNS is not
 * managed here: each domain's target is a stack output for a CNAME/alias record.
 */
export class PlatenDomains extends Construct {
  private readonly certificate: ICertificate | undefined;

  constructor(
    scope: Construct,
    id: string,
    private readonly domains: CustomDomains,
  ) {
    super(scope, id);
    const any = domains.baseDomain ?? domains.authDomain ?? domains.siteDomain;
    if (any && !domains.certificateArn) {
      throw new Error(`Custom domain ${any} needs -c certificateArn=<regional ACM certificate ARN>.`);
    }
    this.certificate = domains.certificateArn
      ? Certificate.fromCertificateArn(this, "Certificate", domains.certificateArn)
      : undefined;
  }

  /** The API Gateway domain for `kind`, or undefined when no such domain was given. */
  domain(kind: "base" | "auth" | "site"): DomainName | undefined {
    const name = this.domains[`${kind}Domain`];
    if (!name || !this.certificate) return undefined;
    const id = `${kind[0]!.toUpperCase()}${kind.slice(1)}Domain`;
    const existing = this.node.tryFindChild(id);
    if (existing instanceof DomainName) return existing;
    const domain = new DomainName(this, id, {
      domainName: name,
      certificate: this.certificate,
      endpointType: EndpointType.REGIONAL,
      securityPolicy: SecurityPolicy.TLS_1_2,
    });
    new CfnOutput(this, `${id}Target`, {
      value: domain.domainNameAliasDomainName,
      description: `DNS target (CNAME/alias) for ${name}`,
    });
    return domain;
  }

  /** `https://<domain>` for `kind`, or undefined. */
  url(kind: "base" | "auth" | "site"): string | undefined {
    const name = this.domains[`${kind}Domain`];
    return name ? `https://${name}` : undefined;
  }
}
