import {
  AbiCoder,
  concat,
  getAddress,
  Interface,
  keccak256,
  toUtf8Bytes,
  TypedDataEncoder,
  type JsonRpcProvider,
} from 'ethers';
import { CacheOnSuccess } from '../../cache-on-success';
import { storableText } from '../../stored-text';
import { formatBaseUnits, toBaseUnits } from '../../chain/amounts';
import { creditTokenInterface } from '../../chain/contracts';
import type { Chain, ChainRegistry } from '../../chain/registry';
import type { TokenDirectory, TokenInfo } from '../../chain/tokens';
import type { UnsignedTransactionJson } from '../../chain/unsigned-transactions';
import type { TransactionBuilder } from '../transactions/building/transaction-builder';
import { viewCall, viewCallResult } from '../../chain/view-call';
import type { Config } from '../../config';
import { defineFailure, ValidationError } from '../../errors';
import type { IndexReader } from '../../indexer/read/index-reader';
import type { AppsService } from '../apps/apps.service';
import type {
  ApproveCreditInput,
  CreateCreditTokenInput,
  CreditBalanceInput,
  CreditPermitDataInput,
  CreditTokensInput,
  TransferCreditInput,
} from './credit.schema';
import type { CreditBalance, CreditTokenInfo, PermitData } from './credit.types';

/** EIP-2612's Permit struct, as OpenZeppelin's ERC20Permit hashes it. */
export const PERMIT_TYPES = {
  Permit: [
    { name: 'owner', type: 'address' },
    { name: 'spender', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
};

/** A token's EIP-712 domain, as its eip712Domain() (ERC-5267) gives it, and the separator it hashes to. */
interface PermitDomain {
  domain: PermitData['domain'];
  separator: string;
}

/** Tokens whose permit domain is kept in memory (a deployed token's domain never changes). */
const PERMIT_DOMAIN_CACHE_SIZE = 10_000;

/**
 * ERC-5267's eip712Domain() with its strings read as bytes (the ABI encodes both alike): a token
 * created at the open factory may name itself with any bytes, and its domain separator hashes
 * those bytes, not a decoding of them.
 */
const eip712DomainBytes = new Interface([
  'function eip712Domain() view returns (bytes1 fields, bytes name, bytes version, uint256 chainId, address verifyingContract, bytes32 salt, uint256[] extensions)',
]);
const EIP712_DOMAIN_TYPEHASH = keccak256(
  toUtf8Bytes('EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)'),
);

/**
 * The domain the token signs permits on, read from the token rather than assumed from its name
 * (a token need not use its name: tokens deployed before and after issue 46 do, others may not),
 * checked against its DOMAIN_SEPARATOR(). Its name and version are shown as text (U+FFFD for bytes
 * that are not UTF-8); the separator is computed from the bytes themselves.
 */
async function readPermitDomain(provider: JsonRpcProvider, token: string): Promise<PermitDomain> {
  const [separator, fields] = await Promise.all([
    viewCall<string>(provider, creditTokenInterface, token, 'DOMAIN_SEPARATOR'),
    viewCallResult(provider, eip712DomainBytes, token, 'eip712Domain'),
  ]);
  const name = fields.name as string;
  const version = fields.version as string;
  const chainId = fields.chainId as bigint;
  const verifyingContract = fields.verifyingContract as string;
  const computed = keccak256(
    AbiCoder.defaultAbiCoder().encode(
      ['bytes32', 'bytes32', 'bytes32', 'uint256', 'address'],
      [EIP712_DOMAIN_TYPEHASH, keccak256(name), keccak256(version), chainId, verifyingContract],
    ),
  );
  if (computed !== separator) {
    throw new Error(`token ${token}: eip712Domain() does not hash to DOMAIN_SEPARATOR()`);
  }
  return {
    domain: {
      name: storableText(Buffer.from(name.slice(2), 'hex')),
      version: storableText(Buffer.from(version.slice(2), 'hex')),
      chainId: Number(chainId),
      verifyingContract: getAddress(verifyingContract),
    },
    separator,
  };
}

/** 404 `token_not_found`: the address is not a Laurel credit (or point) token where one is needed. */
export const TOKEN_NOT_FOUND = defineFailure({
  status: 404,
  codes: ['token_not_found'],
  description:
    'The token is not a credit (or point) token of Laurel on this chain (of this app, for rewards)',
});

export class TokenNotFoundError extends TOKEN_NOT_FOUND.Error {}

export interface CreditServiceDeps {
  config: Config;
  index: IndexReader;
  chains: ChainRegistry;
  builder: TransactionBuilder;
  tokens: TokenDirectory;
  apps: AppsService;
}

/**
 * Credit (and point) tokens of an app: creating them, approvals, EIP-2612 permit data, balances and
 * the app's token list. Unknown tokens (not a Laurel CreditToken) are 404 `token_not_found`.
 */
export class CreditService {
  private readonly permitDomains = new CacheOnSuccess<PermitDomain>(PERMIT_DOMAIN_CACHE_SIZE);

  constructor(private readonly deps: CreditServiceDeps) {}

  /** App.createCreditToken(name, symbol, decimals, supply, isPoint), sent by the caller (an operator of the app). */
  async createToken(input: CreateCreditTokenInput, sender: string): Promise<UnsignedTransactionJson> {
    const chain = this.deps.chains.get(input.chain);
    const supply = toBaseUnits(input.token_supply, input.token_decimals, 'token_supply', { allowZero: true });
    return this.deps.apps.buildAppCall(chain, sender, {
      contract: 'App',
      address: input.app_id,
      functionName: 'createCreditToken',
      args: [input.token_name, input.token_symbol, input.token_decimals, supply, input.token_is_point],
    });
  }

  /** ERC-20 approve(spender, amount) from the holder, who must be the caller (the signer). */
  async approve(input: ApproveCreditInput, sender: string): Promise<UnsignedTransactionJson> {
    const chain = this.deps.chains.get(input.chain);
    if (input.holder_address !== getAddress(sender)) {
      throw ValidationError.field(
        'holder_address',
        `holder_address must be the caller's own wallet (${getAddress(sender)}): the holder signs the approval`,
      );
    }
    const token = await this.token(chain, input.token_id);
    const amount = toBaseUnits(input.amount, token.decimals, 'amount');
    return this.deps.builder.build({
      chain,
      from: input.holder_address,
      contract: 'CreditToken',
      address: token.address,
      functionName: 'approve',
      args: [input.spender_address, amount],
    });
  }

  /**
   * The EIP-712 digest of Permit(owner=holder, spender=receiver, value, nonce, deadline) on the
   * token's own domain: the holder signs it (a raw digest signature, the same as eth_signTypedData
   * with this domain and Permit), and anyone may submit it to the token's `permit`.
   */
  async permitData(input: CreditPermitDataInput): Promise<PermitData> {
    const chain = this.deps.chains.get(input.chain);
    const token = await this.transferableToken(chain, input.token_id, 'permitted');
    const value = toBaseUnits(input.amount, token.decimals, 'amount');
    // One JSON-RPC batch: the holder's nonce, and the token's domain unless it is known.
    const [{ domain, separator: domainSeparator }, nonce] = await this.deps.chains.withProvider(
      chain,
      (provider) =>
        Promise.all([
          this.permitDomains.get(`${chain.chainId}:${token.address}`, () =>
            readPermitDomain(provider, token.address),
          ),
          viewCall<bigint>(provider, creditTokenInterface, token.address, 'nonces', [input.holder_address]),
        ]),
    );
    const deadline = Math.floor(Date.now() / 1000) + this.deps.config.transactions.permitDeadlineSeconds;
    const permit = { owner: input.holder_address, spender: input.receiver_address, value, nonce, deadline };
    // The digest from the separator the token itself hashes (EIP-712: 0x1901 ‖ domain ‖ struct).
    const hashToSign = keccak256(
      concat(['0x1901', domainSeparator, TypedDataEncoder.from(PERMIT_TYPES).hash(permit)]),
    );
    return { nonce: nonce.toString(), domainSeparator, deadline, hashToSign, domain };
  }

  /**
   * CreditToken.transferWithPermit(holder, receiver, amount, deadline, v, r, s): the holder's signed
   * permit (POST /credit/permit-data, spender = receiver) used and `amount` moved from the holder
   * to the receiver, in one transaction. The permit lets its spender spend, so the receiver sends
   * it: the receiver must be the caller, whose wallet signs the transaction and pays its gas (the
   * holder only signs the permit, without gas). The build simulates the call: an expired deadline,
   * a signature that is not the holder's for exactly this permit, or a balance too small is a
   * `transaction_error` with the decoded revert.
   */
  async transfer(input: TransferCreditInput, sender: string): Promise<UnsignedTransactionJson> {
    const chain = this.deps.chains.get(input.chain);
    if (input.receiver_address !== getAddress(sender)) {
      throw ValidationError.field(
        'receiver_address',
        `receiver_address must be the caller's own wallet (${getAddress(sender)}): the permit lets the receiver spend, so the receiver sends the transfer and pays its gas`,
      );
    }
    const token = await this.transferableToken(chain, input.token_id, 'transferred');
    const value = toBaseUnits(input.amount, token.decimals, 'amount');
    const { r, s, v } = input.signedPermit;
    return this.deps.builder.build({
      chain,
      from: input.receiver_address,
      contract: 'CreditToken',
      address: token.address,
      functionName: 'transferWithPermit',
      // ethers and most wallets give v as 27/28; some libraries give the bare recovery bit.
      args: [
        input.holder_address,
        input.receiver_address,
        value,
        BigInt(input.deadline),
        v < 27 ? v + 27 : v,
        r,
        s,
      ],
    });
  }

  async balance(input: CreditBalanceInput): Promise<CreditBalance> {
    const chain = this.deps.chains.get(input.chain);
    const token = await this.token(chain, input.token_id);
    const raw = await this.deps.chains.withProvider(chain, (provider) =>
      viewCall<bigint>(provider, creditTokenInterface, token.address, 'balanceOf', [input.user_id]),
    );
    return {
      balance: raw.toString(),
      balance_formatted: formatBaseUnits(raw, token.decimals),
      decimals: token.decimals,
    };
  }

  /** The app's credit and point tokens, in creation order, from the index. */
  async tokens(input: CreditTokensInput): Promise<CreditTokenInfo[]> {
    const chain = this.deps.chains.get(input.chain);
    await this.deps.apps.requireApp(chain, input.app_id);
    return this.deps.index.tokensOf(chain.chainId, input.app_id);
  }

  private async token(chain: Chain, address: string): Promise<TokenInfo> {
    const token = await this.deps.tokens.get(chain, address);
    if (!token) throw new TokenNotFoundError('Token not found');
    return token;
  }

  /** A credit token that may be permitted and transferred (not a point token). */
  private async transferableToken(
    chain: Chain,
    address: string,
    refused: 'permitted' | 'transferred',
  ): Promise<TokenInfo> {
    const token = await this.token(chain, address);
    if (token.isPoint) {
      throw ValidationError.field('token_id', `Point tokens are non-transferable: they cannot be ${refused}`);
    }
    return token;
  }
}
