// Bundles the extension and its runtime dependencies (vscode-languageclient)
// into dist/extension.js, so the .vsix needs no node_modules.
//
//   node esbuild.mjs            production bundle (minified)
//   node esbuild.mjs --dev      with inline source maps
import * as esbuild from 'esbuild';

const dev = process.argv.includes('--dev');

await esbuild.build({
  entryPoints: ['src/extension.ts'],
  outfile: 'dist/extension.js',
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['vscode'],
  minify: !dev,
  sourcemap: dev ? 'inline' : false,
  logLevel: 'warning',
});
