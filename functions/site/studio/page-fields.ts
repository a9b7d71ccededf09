/**
 * The page setup of the editor's form (size, orientation, margins) by field name, as the
 * no-script form post and the editor's script both read it: one list of names for both
 * runtimes (this module imports nothing, so the browser bundle can take it).
 */
export function pageSetupOf(value: (name: string) => string) {
  return {
    size: value("pageSize"),
    orientation: value("orientation"),
    margin: {
      top: value("marginTop"),
      right: value("marginRight"),
      bottom: value("marginBottom"),
      left: value("marginLeft"),
    },
  };
}
