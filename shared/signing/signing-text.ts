import type { TextTable } from "#shared/i18n/texts.ts";

/** The texts of the signing identities' refusals (details of 400 VALIDATION_FAILED), both languages side by side. */
export const signingText = {
  labelTaken: {
    en: 'the workspace already has a signing identity labelled "{label}": remove it first or choose another label',
    ja: "ワークスペースには「{label}」というラベルの署名 ID が既にあります。先に削除するか、別のラベルを指定してください",
  },
  tooMany: {
    en: "a workspace keeps at most {max} signing identities: remove one first",
    ja: "ワークスペースに登録できる署名 ID は最大 {max} 件です。先にいずれかを削除してください",
  },
  noKey: { en: "no private key was found", ja: "秘密鍵が見つかりません" },
  keyMismatch: { en: "the private key does not match the certificate", ja: "秘密鍵が証明書と一致しません" },
  wrongPassword: {
    en: "the password does not open the PKCS#12 file",
    ja: "パスワードで PKCS#12 ファイルを開けません",
  },
  notPkcs12: { en: "the file is not a readable PKCS#12 file", ja: "PKCS#12 ファイルとして読み取れません" },
  notPemKey: {
    en: "the private key is not a readable, unencrypted PEM key",
    ja: "秘密鍵を暗号化されていない PEM として読み取れません",
  },
  noCertificate: { en: "the file holds no certificate", ja: "ファイルに証明書が含まれていません" },
  noPemCertificate: { en: "no PEM certificate was found", ja: "PEM 証明書が見つかりません" },
  notX509: { en: "a certificate is not readable X.509", ja: "証明書を X.509 として読み取れません" },
  weakKey: {
    en: "the key is too weak or of an unsupported type: use RSA of 2048 bits or more, or EC P-256, P-384 or P-521",
    ja: "鍵が弱いか未対応の種類です。2048 ビット以上の RSA、または EC P-256、P-384、P-521 を使用してください",
  },
  expired: { en: "the certificate expired on {date}", ja: "証明書の有効期限は {date} に切れています" },
  notYetValid: { en: "the certificate is not valid before {date}", ja: "証明書は {date} まで有効になりません" },
  legacyPkcs12: {
    en: "the PKCS#12 file uses a legacy encryption (3DES or RC2): export it again with AES, e.g. openssl pkcs12 -export of OpenSSL 3",
    ja: "PKCS#12 ファイルが旧式の暗号化 (3DES または RC2) を使っています。AES で書き出し直してください (例: OpenSSL 3 の openssl pkcs12 -export)",
  },
  pkcs12Iterations: {
    en: "the PKCS#12 file asks for more than {max} key-derivation iterations in all",
    ja: "PKCS#12 ファイルの鍵導出の反復回数が合計 {max} 回を超えています",
  },
} as const satisfies TextTable;
