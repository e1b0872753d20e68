// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Permit.sol";
import {NotApp, NonTransferable, ZeroAddress} from "./LaurelErrors.sol";

/// @title CreditToken
/// @notice An app's ERC-20 with EIP-2612 permit. A credit token (`isPoint() == false`) transfers
///         normally; a point token (`isPoint() == true`) is non-transferable: only its app moves it
///         (by minting), holders may burn their own.
/// @dev A real deployment (not a clone): ERC20Permit caches its EIP-712 domain in immutables.
contract CreditToken is ERC20Permit {
    /// @notice The app that mints this token.
    address public immutable app;
    /// @notice True for a non-transferable point token.
    bool public immutable isPoint;
    uint8 private immutable _decimals;

    constructor(
        string memory name_,
        string memory symbol_,
        uint8 decimals_,
        bool isPoint_,
        address app_,
        address initialHolder,
        uint256 initialSupply
    ) ERC20(name_, symbol_) ERC20Permit(name_) {
        if (app_ == address(0)) revert ZeroAddress();
        app = app_;
        isPoint = isPoint_;
        _decimals = decimals_;
        if (initialSupply > 0) _mint(initialHolder, initialSupply);
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
