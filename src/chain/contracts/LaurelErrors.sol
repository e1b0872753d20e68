// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

/// Custom errors shared by every Laurel contract. They are file-level so each one has a single
/// definition (and a single selector) whichever contract throws it.

/// The caller is not the app's owner.
error NotOwner(address caller);
/// The caller is neither the app's owner nor one of its operators.
error NotOperator(address caller);
/// The caller is not the app that owns this token or badge contract.
error NotApp(address caller);
/// An address argument is the zero address.
error ZeroAddress();
/// An amount argument is zero.
error ZeroAmount();
/// The action id is bytes32(0).
error EmptyActionId();
/// A name argument is the empty string.
error EmptyName();
/// A symbol argument is the empty string.
error EmptySymbol();
/// More decimals than a credit token may have.
error InvalidDecimals(uint8 decimals, uint8 max);
/// The badge contract was not created by this app.
error UnknownBadge(address badge);
/// The credit/point token was not created by this app.
error UnknownToken(address token);
/// `rewardPoint` was called with a credit (transferable) token.
error NotPointToken(address token);
/// `rewardCredit` was called with a point (non-transferable) token.
error PointToken(address token);
/// Transfers and approvals are disabled for this token (XP and point tokens).
error NonTransferable();
/// `addOperator` for an address that already is an operator (or the owner).
error AlreadyOperator(address operator);
/// `removeOperator` for an address that is not an operator.
error UnknownOperator(address operator);
/// `initialize` called twice, or on an implementation contract.
error AlreadyInitialized();
/// `appAt` with an index past the end of the list.
error IndexOutOfBounds(uint256 index, uint256 length);
