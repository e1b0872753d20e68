// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {IERC5267} from "@openzeppelin/contracts/interfaces/IERC5267.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";
import {Nonces} from "@openzeppelin/contracts/utils/Nonces.sol";
import {NotApp, NonTransferable, ZeroAddress} from "./LaurelErrors.sol";

/// @title CreditToken
/// @notice An app's ERC-20 with EIP-2612 permit. A credit token (`isPoint() == false`) transfers
///         normally; a point token (`isPoint() == true`) is non-transferable: only its app moves it
///         (by minting), holders may burn their own.
/// @dev A real deployment (not a clone). The permit is OpenZeppelin's ERC20Permit on an EIP-712
///      domain of its own: OpenZeppelin's EIP712 keeps the domain name in a ShortString and reverts
///      `StringTooLong` for a name over 31 bytes, while a token's name may be 512 characters. The
///      domain here is the one ERC20Permit has for a short name (the token's full name, version "1"),
///      its hash kept in an immutable and the name itself read from ERC20's storage, so tokens
///      deployed before sign the same permits.
contract CreditToken is ERC20, IERC20Permit, IERC5267, Nonces {
    bytes32 private constant PERMIT_TYPEHASH =
        keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)");
    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant HASHED_VERSION = keccak256("1");

    /// @notice The app that mints this token.
    address public immutable app;
    /// @notice True for a non-transferable point token.
    bool public immutable isPoint;
    uint8 private immutable _decimals;
    bytes32 private immutable _hashedName;
    uint256 private immutable _cachedChainId;
    bytes32 private immutable _cachedDomainSeparator;

    /// @dev As OpenZeppelin's ERC20Permit, so reverts decode the same.
    error ERC2612ExpiredSignature(uint256 deadline);
    error ERC2612InvalidSigner(address signer, address owner);

    constructor(
        string memory name_,
        string memory symbol_,
        uint8 decimals_,
        bool isPoint_,
        address app_,
        address initialHolder,
        uint256 initialSupply
    ) ERC20(name_, symbol_) {
        if (app_ == address(0)) revert ZeroAddress();
        app = app_;
        isPoint = isPoint_;
        _decimals = decimals_;
        _hashedName = keccak256(bytes(name_));
        _cachedChainId = block.chainid;
        _cachedDomainSeparator = _buildDomainSeparator();
        if (initialSupply > 0) _mint(initialHolder, initialSupply);
    }

    /// @inheritdoc IERC20Permit
    function permit(
        address owner,
        address spender,
        uint256 value,
        uint256 deadline,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) public {
        if (block.timestamp > deadline) revert ERC2612ExpiredSignature(deadline);
        bytes32 structHash = keccak256(abi.encode(PERMIT_TYPEHASH, owner, spender, value, _useNonce(owner), deadline));
        address signer = ECDSA.recover(MessageHashUtils.toTypedDataHash(DOMAIN_SEPARATOR(), structHash), v, r, s);
        if (signer != owner) revert ERC2612InvalidSigner(signer, owner);
        _approve(owner, spender, value);
    }

    /// @inheritdoc IERC20Permit
    function nonces(address owner) public view override(IERC20Permit, Nonces) returns (uint256) {
        return super.nonces(owner);
    }

    /// @inheritdoc IERC20Permit
    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return block.chainid == _cachedChainId ? _cachedDomainSeparator : _buildDomainSeparator();
    }

    /// @inheritdoc IERC5267
    function eip712Domain()
        public
        view
        returns (
            bytes1 fields,
            string memory name,
            string memory version,
            uint256 chainId,
            address verifyingContract,
            bytes32 salt,
            uint256[] memory extensions
        )
    {
        // `name` is the ERC-5267 field here; ERC20.name() is the token's (and the domain's) name.
        return (hex"0f", ERC20.name(), "1", block.chainid, address(this), bytes32(0), new uint256[](0));
    }

    function _buildDomainSeparator() private view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, _hashedName, HASHED_VERSION, block.chainid, address(this)));
    }

    function decimals() public view override returns (uint8) {
        return _decimals;
    }

    /// @notice Mints tokens; only the app.
    function mint(address to, uint256 amount) external {
        if (msg.sender != app) revert NotApp(msg.sender);
        _mint(to, amount);
    }

    /// @notice Burns `amount` of the caller's own tokens.
    function burn(uint256 amount) external {
        _burn(msg.sender, amount);
    }

    /// @notice Uses an EIP-2612 permit of `owner` for the caller (the permit's spender) and, in the
    ///         same transaction, moves `value` of `owner`'s tokens to `to`: what POST
    ///         /v1/credit/transfer builds. The caller sends it and pays its gas; the holder only signs.
    /// @dev Reverts as `permit` does (ERC2612ExpiredSignature, ERC2612InvalidSigner) and as
    ///      `transferFrom` does (ERC20InsufficientBalance, NonTransferable for point tokens).
    function transferWithPermit(
        address owner,
        address to,
        uint256 value,
        uint256 deadline,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external returns (bool) {
        permit(owner, msg.sender, value, deadline, v, r, s);
        return transferFrom(owner, to, value);
    }

    function transfer(address to, uint256 value) public override returns (bool) {
        if (isPoint) revert NonTransferable();
        return super.transfer(to, value);
    }

    function transferFrom(address from, address to, uint256 value) public override returns (bool) {
        if (isPoint) revert NonTransferable();
        return super.transferFrom(from, to, value);
    }

    function approve(address spender, uint256 value) public override returns (bool) {
        if (isPoint) revert NonTransferable();
        return super.approve(spender, value);
    }

    /// @dev Also covers `permit` on point tokens.
    function _approve(address owner, address spender, uint256 value, bool emitEvent) internal override {
        if (isPoint) revert NonTransferable();
        super._approve(owner, spender, value, emitEvent);
    }

    function _update(address from, address to, uint256 value) internal override {
        if (isPoint && from != address(0) && to != address(0)) revert NonTransferable();
        super._update(from, to, value);
    }
}
