import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorOf, invoiceOf, renderQueue } from "../helpers/async-fixtures-limits-bridge.ts";
import { invoiceParamsOfBytes, invoiceSingle, postJson, postOversizedBody } from "../helpers/limits-http.ts";
import { burst, pagesUsedNow, rendererStats, type ServiceClock, serviceClock } from "../helpers/limits-stack.ts";
import { api, type RunningStack, removeDataDir, startStack } from "../helpers/local-stack.ts";
import { createTenant, type Tenant } from "../helpers/sync-fixtures.ts";
