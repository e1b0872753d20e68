// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {NotApp, NonTransferable, AlreadyInitialized, ZeroAddress} from "./LaurelErrors.sol";

/// @title XPToken
/// @notice One per app: a non-transferable ERC-20 (18 decimals, symbol "XP") that only its app mints.
/// @dev Deployed as EIP-1167 clones of one implementation, hence `initialize` instead of a constructor
///      and `name()` read from this contract's own storage.
contract XPToken is ERC20 {
    address private _app;
    string private _tokenName;
    bool private _initialized;

    constructor() ERC20("", "") {
        // The implementation itself can never be initialized.
        _initialized = true;
    }

    /// @notice Called once by the factory right after cloning.
    function initialize(address app_, string calldata name_) external {
        if (_initialized) revert AlreadyInitialized();
        if (app_ == address(0)) revert ZeroAddress();
        _initialized = true;
        _app = app_;
        _tokenName = name_;
    }

    /// @notice The app that mints this token.
    function app() external view returns (address) {
        return _app;
    }

    function name() public view override returns (string memory) {
        return _tokenName;
    }

    function symbol() public pure override returns (string memory) {
        return "XP";
    }

    /// @notice Mints XP; only the app.
    function mint(address to, uint256 amount) external {
        if (msg.sender != _app) revert NotApp(msg.sender);
        _mint(to, amount);
    }

    function transfer(address, uint256) public pure override returns (bool) {
        revert NonTransferable();
    }

    function transferFrom(address, address, uint256) public pure override returns (bool) {
        revert NonTransferable();
    }

    function approve(address, uint256) public pure override returns (bool) {
        revert NonTransferable();
    }

    function _update(address from, address to, uint256 value) internal override {
        if (from != address(0) && to != address(0)) revert NonTransferable();
        super._update(from, to, value);
    }
}
