// The layer rules of lint/layers.mjs, checked by dependency-cruiser on the
// resolved module graph of src/ (part of `npm run lint`).
import { forbiddenFor, LAYERED, TIERS } from './lint/layers.mjs';

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The path regex of a folder of src/: '' is the files directly in src/. */
const at = (folder) => (folder === '' ? '^src/[^/]+$' : `^src/${escape(folder)}/`);
const NOT_TESTS = '\\.test\\.ts$';

const layerRules = TIERS.flatMap((tier, index) =>
  tier.folders.flatMap((folder) => {
    const banned = forbiddenFor(folder);
    // The top tier has nothing above it (an empty list would match every module).
    if (banned.length === 0) return [];
    const name = folder === '' ? 'src' : folder;
    return {
      name: `layer-${name}`,
      severity: 'error',
      comment: `src/${folder === '' ? '' : `${folder}/`} (tier ${index + 1}: ${tier.name}) may import only its own folder and lower tiers; not ${banned.map((f) => (f === '' ? 'src/*.ts' : `${f}/`)).join(', ')}`,
      from: { path: at(folder), pathNot: NOT_TESTS },
      to: { path: banned.map(at) },
    };
  }),
);

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    ...layerRules,
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'files of src/ never import each other in a loop',
      from: { path: '^src/', pathNot: NOT_TESTS },
      to: { circular: true },
    },
    {
      name: 'unlayered-folder',
      severity: 'error',
      comment: 'every folder of src/ has a tier in lint/layers.mjs',
      from: { path: '^src/[^/]+/', pathNot: [NOT_TESTS, ...LAYERED.filter((f) => f !== '').map((f) => `^src/${escape(f)}/`)] },
      to: {},
    },
    {
      name: 'src-not-to-tests',
      severity: 'error',
      comment: 'shipped code never imports the test tree',
      from: { path: '^src/', pathNot: NOT_TESTS },
      to: { path: '^test/' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'every import of src/ resolves',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|node_modules|build)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], mainFields: ['module', 'main', 'types'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
