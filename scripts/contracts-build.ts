/**
 * Compiles the Laurel contracts (src/chain/contracts/*.sol) with the pinned `solc` npm package and
 * writes one artifact per contract the service needs to src/chain/contracts/build/<Name>.json, and
 * their ABIs `as const` to src/chain/contracts/build/abis.ts (typed calls, see src/chain/abis.ts).
 *
 * Run: `npm run contracts:build` (tsc, then `node dist/scripts/contracts-build.js`).
 * test/unit/contract-artifacts.test.ts recompiles with `compileContracts()` and fails when the
 * checked-in artifacts are stale.
 */
import fs from 'node:fs';
import path from 'node:path';
import solc from 'solc';

/** The contracts whose artifacts are written (never OpenZeppelin internals). */
export const ARTIFACT_CONTRACTS = [
  'AppFactory',
  'App',
  'XPToken',
  'CreditToken',
  'CreditTokenDeployer',
  'Badge',
] as const;
export type ArtifactContractName = (typeof ARTIFACT_CONTRACTS)[number];

/** Compiler settings; changing any of them changes the bytecode. */
export const SOLC_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
} as const;

export type AbiItem = Record<string, unknown>;

export interface CompiledContract {
  abi: AbiItem[];
  /** Creation code, 0x-prefixed. */
  bytecode: string;
  /** Runtime code as compiled (immutables zeroed), 0x-prefixed; used for size checks only. */
  deployedBytecode: string;
}

export interface ContractArtifact {
  contractName: string;
  abi: AbiItem[];
  bytecode: string;
}

/** Walks up from `start` to the first directory holding a package.json (the repository root). */
export function findRepoRoot(start: string = __dirname): string {
  let dir = path.resolve(start);
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`No package.json found above ${start}`);
    dir = parent;
  }
}

export function contractsDir(root: string = findRepoRoot()): string {
  return path.join(root, 'src', 'chain', 'contracts');
}

export function artifactsDir(root: string = findRepoRoot()): string {
  return path.join(contractsDir(root), 'build');
}

/** Source unit names are repository-relative so the metadata (and bytecode) is machine-independent. */
const SOURCE_PREFIX = 'src/chain/contracts/';

interface SolcMessage {
  severity: 'error' | 'warning' | 'info';
  formattedMessage?: string;
  message: string;
}

interface SolcOutput {
  errors?: SolcMessage[];
  contracts?: Record<
    string,
    Record<
      string,
      { abi: AbiItem[]; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }
    >
  >;
}

/** Recursively sorts object keys so the JSON output has a stable key order. */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

/**
 * Compiles every .sol file under src/chain/contracts and returns the ABI and bytecode of the
 * artifact contracts. Throws with solc's messages on any compilation error.
 */
export function compileContracts(
  root: string = findRepoRoot(),
  onWarning?: (message: string) => void,
): Record<ArtifactContractName, CompiledContract> {
  const dir = contractsDir(root);
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.sol'))
    .sort();
  const sources: Record<string, { content: string }> = {};
  for (const file of files)
    sources[SOURCE_PREFIX + file] = { content: fs.readFileSync(path.join(dir, file), 'utf8') };

  const input = {
    language: 'Solidity',
    sources,
    settings: {
      ...SOLC_SETTINGS,
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
    },
  };

  const nodeModules = path.join(root, 'node_modules');
  const findImports = (importPath: string): { contents: string } | { error: string } => {
    const candidates = [path.join(nodeModules, importPath), path.join(root, importPath)];
    for (const candidate of candidates) {
      const resolved = path.resolve(candidate);
      // Only read inside the repository (node_modules included).
      if (!resolved.startsWith(root + path.sep)) continue;
      if (fs.existsSync(resolved)) return { contents: fs.readFileSync(resolved, 'utf8') };
    }
    return { error: `File not found: ${importPath}` };
  };

  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports })) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (onWarning) {
    for (const w of output.errors ?? [])
      if (w.severity !== 'error') onWarning(w.formattedMessage ?? w.message);
  }
  if (errors.length > 0) {
    throw new Error(
      `Solidity compilation failed:\n${errors.map((e) => e.formattedMessage ?? e.message).join('\n')}`,
    );
  }

  const result = {} as Record<ArtifactContractName, CompiledContract>;
  for (const name of ARTIFACT_CONTRACTS) {
    const unit = output.contracts?.[`${SOURCE_PREFIX}${name}.sol`]?.[name];
    if (!unit) throw new Error(`Contract ${name} not found in ${SOURCE_PREFIX}${name}.sol`);
    result[name] = {
      abi: unit.abi.map((item) => sortKeys(item) as AbiItem),
      bytecode: '0x' + unit.evm.bytecode.object,
      deployedBytecode: '0x' + unit.evm.deployedBytecode.object,
    };
  }
  return result;
}

/** The version string of the bundled solc. */
export function solcVersion(): string {
  return solc.version() as string;
}

/** The exact text of an artifact file. */
export function artifactJson(name: string, compiled: Pick<CompiledContract, 'abi' | 'bytecode'>): string {
  const artifact: ContractArtifact = { contractName: name, abi: compiled.abi, bytecode: compiled.bytecode };
  return JSON.stringify(artifact, null, 2) + '\n';
}

/** The client package's copy of build/abis.ts. */
export const CLIENT_ABIS_FILE = path.join('packages', 'client', 'src', 'generated', 'abis.ts');

/** The exact text of build/abis.ts (and of the client's copy): every ABI as a TypeScript `as const` literal, for abitype. */
export function abisTs(compiled: Record<ArtifactContractName, Pick<CompiledContract, 'abi'>>): string {
  const lines = ['// Generated by `npm run contracts:build` from the artifacts beside it: do not edit.'];
  for (const name of ARTIFACT_CONTRACTS) {
    lines.push('', `export const ${name}Abi = ${JSON.stringify(compiled[name].abi, null, 2)} as const;`);
  }
  return lines.join('\n') + '\n';
}

/** Writes the artifacts of `compiled` (files whose text is unchanged are not touched); returns their paths. */
export function writeArtifacts(
  compiled: Record<ArtifactContractName, CompiledContract>,
  root: string = findRepoRoot(),
): string[] {
  const outDir = artifactsDir(root);
  fs.mkdirSync(outDir, { recursive: true });
  const written: string[] = [];
  for (const name of ARTIFACT_CONTRACTS) {
    const file = path.join(outDir, `${name}.json`);
    const text = artifactJson(name, compiled[name]);
    if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== text) fs.writeFileSync(file, text);
    written.push(file);
  }
  // The client package decodes what it is asked to sign with the same ABIs (packages/client).
  const abisText = abisTs(compiled);
  for (const abis of [path.join(outDir, 'abis.ts'), path.join(root, CLIENT_ABIS_FILE)]) {
    if (!fs.existsSync(abis) || fs.readFileSync(abis, 'utf8') !== abisText) fs.writeFileSync(abis, abisText);
    written.push(abis);
  }
  return written;
}

if (require.main === module) {
  try {
    const root = findRepoRoot();
    const started = Date.now();
    const compiled = compileContracts(root, (warning) => console.warn(warning));
    writeArtifacts(compiled, root);
    console.log(`solc ${solcVersion()} (${Date.now() - started} ms)`);
    for (const name of ARTIFACT_CONTRACTS) {
      const runtime = (compiled[name].deployedBytecode.length - 2) / 2;
      const init = (compiled[name].bytecode.length - 2) / 2;
      console.log(
        `  ${name.padEnd(20)} runtime ${String(runtime).padStart(6)} B  initcode ${String(init).padStart(6)} B  -> ${path.relative(root, path.join(artifactsDir(root), name + '.json'))}`,
      );
    }
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  }
}
