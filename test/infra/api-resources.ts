import type { TemplateJson, Cfn } from "./synth.ts";

/** A method of a RestApi with the full resource path it hangs on. */
export interface ApiMethod {
  logicalId: string;
  restApi: string;
  path: string;
  httpMethod: string;
  properties: Record<string, Cfn>;
}

/**
 * Every AWS::ApiGateway::Method with its full path, rebuilt from the Resource PathParts
 * (ParentId is either the RestApi's RootResourceId or another Resource).
 */
export function apiMethods(json: TemplateJson): ApiMethod[] {
  const resources = json.Resources;
  const pathOf = (ref: Cfn): string => {
    if (ref["Fn::GetAtt"]) return "";
    const resource = resources[ref.Ref];
    if (!resource?.Properties) throw new Error(`unknown resource ${JSON.stringify(ref)}`);
    return `${pathOf(resource.Properties.ParentId)}/${resource.Properties.PathPart}`;
  };
  return Object.entries(resources)
    .filter(([, r]) => r.Type === "AWS::ApiGateway::Method")
    .map(([logicalId, r]) => ({
      logicalId,
      restApi: r.Properties?.RestApiId.Ref,
      path: pathOf(r.Properties?.ResourceId) || "/",
      httpMethod: r.Properties?.HttpMethod,
      properties: r.Properties ?? {},
    }));
}

/** Full paths of every AWS::ApiGateway::Resource of one RestApi, plus its root `/`. */
export function apiResourcePaths(json: TemplateJson, restApi: string): string[] {
  const paths = new Set<string>(["/"]);
  const resources = json.Resources;
  const pathOf = (id: string): string => {
    const p = resources[id]!.Properties!;
    return p.ParentId["Fn::GetAtt"] ? `/${p.PathPart}` : `${pathOf(p.ParentId.Ref)}/${p.PathPart}`;
  };
  for (const [id, r] of Object.entries(resources)) {
    if (r.Type === "AWS::ApiGateway::Resource" && r.Properties?.RestApiId.Ref === restApi) paths.add(pathOf(id));
  }
  return [...paths];
}

/** The function logical id a Lambda proxy integration invokes. */
export function integrationFunction(method: ApiMethod): string | undefined {
  const uri = JSON.stringify(method.properties.Integration?.Uri ?? {});
  return /"Fn::GetAtt":\["([A-Za-z0-9]+)","Arn"\]/.exec(uri)?.[1];
}
