// Compile each Markdown file given as an argument with MDX 3 (front matter and GFM tables
// as Docusaurus/Astro set them up), run it, and print {file: html or {error}} as JSON.
import {readFile} from 'node:fs/promises'
import {evaluate} from '@mdx-js/mdx'
import * as runtime from 'react/jsx-runtime'
import {renderToStaticMarkup} from 'react-dom/server'
import remarkFrontmatter from 'remark-frontmatter'
import remarkGfm from 'remark-gfm'

const out = {}
for (const file of process.argv.slice(2)) {
  try {
    const source = await readFile(file, 'utf8')
    const {default: Content} = await evaluate(source, {
      ...runtime,
      remarkPlugins: [remarkFrontmatter, remarkGfm]
    })
    out[file] = renderToStaticMarkup(runtime.jsx(Content, {}))
  } catch (error) {
    out[file] = {error: String(error)}
  }
}
process.stdout.write(JSON.stringify(out))
