import { writeDesignFolder } from "./sync-fixtures.ts";

/**
 * A record design in a folder under `root` (shared/records/README.md#designjson-record): a receipt whose date,
 * amount and counterparty are its params 日付, 金額 and 宛名, its number `RC-<amount>`. Returns the folder.
 */
export function writeReceiptRecordDesign(root: string): string {
  return writeDesignFolder(root, "record-receipt", {
    label: "記録する領収書",
    pageSize: "A5",
    parameters: [
      { name: "日付", type: "text", label: "日付" },
      { name: "金額", type: "number", label: "金額" },
      { name: "宛名", type: "text", label: "宛名" },
    ],
    record: { type: "receipt", date: "日付", amount: "金額", counterparty: "宛名", number: "'RC-' | append: 金額" },
    template: "<h1>領収書</h1><p>{{ 宛名 }} 様 {{ 金額 }} 円 {{ 日付 }}</p>",
  });
}
