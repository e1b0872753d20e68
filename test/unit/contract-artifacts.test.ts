import fs from 'node:fs';
import path from 'node:path';
import {
  abisTs,
  ARTIFACT_CONTRACTS,
  artifactJson,
  artifactsDir,
  CLIENT_ABIS_FILE,
  compileContracts,
  findRepoRoot,
  type CompiledContract,
} from '../../scripts/contracts-build';
import { laurelArtifacts } from '../../src/chain/contracts';

const EIP170_LIMIT = 24_576;
const EIP3860_INITCODE_LIMIT = 49_152;

describe('checked-in contract artifacts', () => {
  let compiled: Record<string, CompiledContract>;
  const root = findRepoRoot(__dirname);

  beforeAll(() => {
    compiled = compileContracts(root);
  }, 120_000);

  it('finds the repository root', () => {
    expect(fs.existsSync(path.join(root, 'package.json'))).toBe(true);
    expect(fs.existsSync(path.join(root, 'src', 'chain', 'contracts'))).toBe(true);
  });

  it.each(ARTIFACT_CONTRACTS)('%s.json is up to date (else run `npm run contracts:build`)', (name) => {
    const file = path.join(artifactsDir(root), `${name}.json`);
    expect(fs.existsSync(file)).toBe(true);
    expect(fs.readFileSync(file, 'utf8')).toBe(artifactJson(name, compiled[name]!));
  });

  it.each([
    ['build/abis.ts', path.join(artifactsDir(root), 'abis.ts')],
    ["the client's copy", path.join(root, CLIENT_ABIS_FILE)],
  ])('%s is up to date (else run `npm run contracts:build`)', (_, file) => {
    expect(fs.readFileSync(file, 'utf8')).toBe(
      abisTs(compiled as Record<(typeof ARTIFACT_CONTRACTS)[number], CompiledContract>),
    );
  });

  it('has no artifact for a contract that is gone', () => {
    const files = fs.readdirSync(artifactsDir(root)).filter((f) => f.endsWith('.json'));
    expect(files.sort()).toEqual(ARTIFACT_CONTRACTS.map((n) => `${n}.json`).sort());
  });

  it('exports every artifact from src/chain/contracts.ts', () => {
    expect(Object.keys(laurelArtifacts).sort()).toEqual([...ARTIFACT_CONTRACTS].sort());
    for (const name of ARTIFACT_CONTRACTS) {
      expect(laurelArtifacts[name].bytecode).toBe(compiled[name]!.bytecode);
    }
  });

  it.each(ARTIFACT_CONTRACTS)('%s fits the EIP-170 runtime and EIP-3860 initcode limits', (name) => {
    const runtime = (compiled[name]!.deployedBytecode.length - 2) / 2;
    const initcode = (compiled[name]!.bytecode.length - 2) / 2;
    expect(runtime).toBeGreaterThan(0);
    expect(runtime).toBeLessThanOrEqual(EIP170_LIMIT);
    expect(initcode).toBeLessThanOrEqual(EIP3860_INITCODE_LIMIT);
  });
});
