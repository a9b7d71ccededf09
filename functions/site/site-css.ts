/**
 * The site's one stylesheet, served at /assets/site.css (CSP `style-src 'self'`: no
 * inline styles). Colours meet WCAG AA contrast (text #1a1a1a on white 17:1, links
 * #0b5cad 6.5:1, error #a4161a 7.7:1); focus is always visible for keyboard users.
 */
export const SITE_CSS = `
:root { color-scheme: light; --fg: #1a1a1a; --muted: #4a4a4a; --link: #0b5cad; --line: #c8c8c8; --bg-soft: #f4f5f7; --error: #a4161a; --warn-bg: #fff4d6; --warn-line: #8a6100; }
* { box-sizing: border-box; }
body { margin: 0; font-family: system-ui, -apple-system, "Segoe UI", "Noto Sans JP", "Hiragino Sans", sans-serif; color: var(--fg); background: #fff; line-height: 1.55; }
a { color: var(--link); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, summary:focus-visible { outline: 3px solid #1f6feb; outline-offset: 2px; }
.skip { position: absolute; left: -9999px; }
.skip:focus { left: 1rem; top: 1rem; background: #fff; padding: .5rem; z-index: 10; }
header.site { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; justify-content: space-between; padding: .75rem 1.25rem; border-bottom: 1px solid var(--line); background: var(--bg-soft); }
header.site .brand { font-weight: 700; font-size: 1.15rem; color: var(--fg); text-decoration: none; }
header.site nav ul { list-style: none; display: flex; flex-wrap: wrap; gap: 1rem; margin: 0; padding: 0; }
main { max-width: 62rem; margin: 0 auto; padding: 1.25rem; }
footer.site { max-width: 62rem; margin: 2rem auto; padding: 0 1.25rem; color: var(--muted); font-size: .9rem; }
h1 { font-size: 1.6rem; margin: .5rem 0 1rem; }
h2 { font-size: 1.25rem; margin-top: 2rem; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .35rem 1.25rem; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
table { border-collapse: collapse; width: 100%; margin: 1rem 0; }
th, td { text-align: left; padding: .45rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; overflow-wrap: anywhere; }
th { background: var(--bg-soft); }
code { font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; background: var(--bg-soft); padding: 0 .25rem; border-radius: 3px; }
ol.pages { list-style: none; padding: 0; display: flex; flex-direction: column; gap: 1rem; }
ol.pages img { display: block; max-width: 100%; height: auto; border: 1px solid var(--line); box-shadow: 0 1px 3px rgba(0,0,0,.15); background: #fff; }
.button, button { display: inline-block; font: inherit; padding: .5rem 1rem; border-radius: 4px; border: 1px solid #0b5cad; background: #0b5cad; color: #fff; text-decoration: none; cursor: pointer; }
button.secondary, .button.secondary { background: #fff; color: #0b5cad; }
button.danger { background: var(--error); border-color: var(--error); }
form.inline { display: inline; }
label { display: block; font-weight: 600; margin: .75rem 0 .25rem; }
input[type=text], input[type=password], input[type=email], input[type=url], input[type=search], select { font: inherit; padding: .45rem .5rem; border: 1px solid #767676; border-radius: 4px; min-width: 18rem; max-width: 100%; }
.alert { border-left: 4px solid var(--error); background: #fdecec; padding: .75rem 1rem; margin: 1rem 0; }
.warning { border-left: 4px solid var(--warn-line); background: var(--warn-bg); padding: .75rem 1rem; margin: 1rem 0; }
.notice { border-left: 4px solid #0b5cad; background: #eaf2fb; padding: .75rem 1rem; margin: 1rem 0; }
.secret { font-family: ui-monospace, Menlo, monospace; font-size: 1.05rem; background: var(--bg-soft); padding: .5rem; display: inline-block; overflow-wrap: anywhere; }
.muted { color: var(--muted); }
section.code-doc { border-top: 1px solid var(--line); padding: .5rem 0 1rem; }
section.code-doc:target { background: #fffbe6; }
section.code-doc h2 { font-family: ui-monospace, Menlo, monospace; font-size: 1.1rem; }
.pager { display: flex; gap: 1rem; margin: 1rem 0; }
pre { background: var(--bg-soft); padding: .75rem 1rem; overflow-x: auto; border-radius: 4px; }
pre code { padding: 0; background: none; }
section.api-op { border-top: 1px solid var(--line); padding: .5rem 0 1rem; }
section.api-op:target { background: #fffbe6; }
section.api-op h3 { font-size: 1.1rem; }
section.api-op th, section.api-op td { overflow-wrap: normal; }
section.api-op th, section.api-op td:first-child, section.api-op .nowrap { white-space: nowrap; }
main.wide { max-width: 96rem; }
textarea { font-family: ui-monospace, Menlo, monospace; font-size: .9rem; width: 100%; border: 1px solid #767676; border-radius: 4px; padding: .5rem; }
textarea:focus-visible, .cm-editor.cm-focused { outline: 3px solid #1f6feb; outline-offset: 2px; }
img.thumb { border: 1px solid var(--line); background: #fff; aspect-ratio: 210 / 297; height: auto; object-fit: contain; }
.badge { font-size: .8rem; background: var(--warn-bg); border: 1px solid var(--warn-line); border-radius: 3px; padding: 0 .3rem; }
.create-grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(16rem, 1fr)); gap: 1rem; }
form.create { border: 1px solid var(--line); border-radius: 4px; padding: 0 1rem .5rem; }
form.create h3 { font-size: 1.05rem; }
form.create input[type=text], form.create select { min-width: 0; width: 100%; }
.studio-grid { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 1.5rem; align-items: start; }
@media (max-width: 60rem) { .studio-grid { grid-template-columns: minmax(0, 1fr); } }
.page-setup { display: flex; flex-wrap: wrap; gap: 0 1rem; border: 1px solid var(--line); border-radius: 4px; }
.page-setup input[type=text], .page-setup select { min-width: 6rem; }
.tabs { display: flex; gap: .25rem; margin-top: 1rem; border-bottom: 1px solid var(--line); }
.tabs [role=tab] { background: #fff; color: #0b5cad; border-bottom: none; border-radius: 4px 4px 0 0; }
.tabs [role=tab][aria-selected=true] { background: #0b5cad; color: #fff; }
.studio.enhanced .file-panel > label { position: absolute; left: -9999px; }
.cm-editor { border: 1px solid #767676; border-radius: 4px; height: 28rem; font-size: .9rem; }
.cm-scroller { overflow: auto; }
.preview-pages { display: flex; flex-direction: column; gap: .75rem; }
img.page-image { width: 100%; height: auto; border: 1px solid var(--line); box-shadow: 0 1px 3px rgba(0,0,0,.15); background: #fff; }
ul.problems { padding-left: 1.2rem; }
button.link { background: none; border: none; color: var(--link); padding: 0; text-align: left; text-decoration: underline; }
button.link:disabled { color: var(--fg); text-decoration: none; cursor: default; }
.diff { font-family: ui-monospace, Menlo, monospace; font-size: .85rem; white-space: pre-wrap; background: var(--bg-soft); padding: .5rem; border-radius: 4px; }
.diff .add { background: #e6f4ea; display: block; }
.diff .del { background: #fdecec; display: block; }
.diff .hunk { color: var(--muted); display: block; }
.diff .same { display: block; }
form.inline { display: inline; }
.inline-fields { display: flex; flex-wrap: wrap; gap: 0 1rem; align-items: end; }
.gallery { display: grid; grid-template-columns: repeat(auto-fill, minmax(15rem, 1fr)); gap: 1rem; list-style: none; padding: 0; }
.gallery li { border: 1px solid var(--line); border-radius: 4px; padding: .75rem; }
.gallery img { width: 100%; height: auto; border: 1px solid var(--line); }
`;
