/** The file name a PDF is saved under (downloads and ZIP entries): `.pdf` appended when missing. */
export const pdfFileName = (fileName: string) => (/\.pdf$/i.test(fileName) ? fileName : `${fileName}.pdf`);

/**
 * ZIP entry names from fileNames: `.pdf` appended, Unicode NFC, and made unique
 * case-insensitively (`a` and `a.pdf` would otherwise collide) with ` (2)`, ` (3)`.
 * the fileName rules (error FILE_NAME_INVALID) already forbid / \ : so no name can leave the archive's root.
 */
export function zipEntryNames(fileNames: string[]): string[] {
  const used = new Set<string>();
  return fileNames.map((raw) => {
    const name = pdfFileName(raw.normalize("NFC"));
    let candidate = name;
    for (let n = 2; used.has(candidate.toLowerCase()); n++) candidate = name.replace(/\.pdf$/i, ` (${n}).pdf`);
    used.add(candidate.toLowerCase());
    return candidate;
  });
}

/**
 * The e-invoice XML's name beside a PDF of that name (`invoice.pdf` → `invoice.xml`): unique in an
 * archive whenever the PDF names are, since every PDF name ends in `.pdf`.
 */
export const einvoiceFileName = (pdfName: string) => pdfFileName(pdfName).replace(/\.pdf$/i, ".xml");
