// Import cycles, type-only imports included (`npm test` runs `npm run cycles`). A cycle is a type or a helper
// that lives on the wrong side of a boundary: move it to the module both sides may depend on instead.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules that import each other, directly or through others, even for a type: move the shared piece down.',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|coverage|\\.local)/' },
    // `import type` counts: a cycle of types is still two modules that cannot be understood apart.
    tsPreCompilationDeps: true,
    // The workspace packages (@pl/...) resolve to their sources, as the typechecker sees them.
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['types', 'import', 'require', 'node', 'default'],
      extensions: ['.ts', '.tsx', '.d.ts', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};
