/**
 * Peppol BIS Billing 3.0 rules that apply to the model (PEPPOL-EN16931-*), including the two
 * XRechnung 3.0 adopts.
 */
import { type EinvoiceRule, isBlank, requiredTerm } from "./rules.ts";
import { unsupportedFor } from "./write-einvoice.ts";

const PEPPOL = ["peppol-bis"] as const;
const XRECHNUNG_AND_PEPPOL = ["xrechnung", "peppol-bis"] as const;

/**
 * Peppol BIS Billing 3.0; of these, XRechnung 3.0 adopts the electronic addresses (R010, R020)
 * but not R003 or the type code list. R002 (one note) is met by the UBL writer, which joins the
 * notes into one. The last rule is Platen's own: what UBL cannot carry (`unsupportedFor`).
 */
export const peppolRules: readonly EinvoiceRule[] = [
  {
    id: "PEPPOL-EN16931-R003",
    path: "buyerReference",
    formats: PEPPOL,
    message: {
      en: "A buyer reference (BT-10) or a purchase order reference (BT-13) is required.",
      ja: "買い手参照 (BT-10) または発注番号 (BT-13) が必要です。",
    },
    check: ({ model }) =>
      isBlank(model.buyerReference) && isBlank(model.orderReference) ? [{ path: "buyerReference" }] : [],
  },
  requiredTerm(
    "PEPPOL-EN16931-R010",
    "buyer.electronicAddress",
    {
      en: "The buyer's electronic address (BT-49) is required, with its scheme (such as 0204 for a Leitweg-ID, EM for e-mail).",
      ja: "買い手の電子アドレス (BT-49) とそのスキーム（例: Leitweg-ID は 0204、メールは EM）が必要です。",
    },
    (m) => m.buyer?.electronicAddress,
    { formats: XRECHNUNG_AND_PEPPOL },
  ),
  requiredTerm(
    "PEPPOL-EN16931-R020",
    "seller.electronicAddress",
    {
      en: "The seller's electronic address (BT-34) is required, with its scheme (such as 0088 for a GLN, EM for e-mail).",
      ja: "売り手の電子アドレス (BT-34) とそのスキーム（例: GLN は 0088、メールは EM）が必要です。",
    },
    (m) => m.seller?.electronicAddress,
    { formats: XRECHNUNG_AND_PEPPOL },
  ),
  {
    id: "PLATEN-UBL-CREDIT-NOTE-DUE-DATE",
    path: "payment.meansCode",
    formats: PEPPOL,
    message: {
      en: "A Peppol credit note carries its payment due date (BT-9) in the payment instructions: give the payment means code (BT-81) too, or leave the due date out.",
      ja: "Peppol のクレジットノートでは支払期日 (BT-9) を支払指示の中に記載します。支払手段コード (BT-81) も指定するか、支払期日を省いてください。",
    },
    check: ({ format, computed }) => (unsupportedFor(format, computed) ? [{ path: "payment.meansCode" }] : []),
  },
];
