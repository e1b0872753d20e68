// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {Clones} from "@openzeppelin/contracts/proxy/Clones.sol";
import {App} from "./App.sol";
import {XPToken} from "./XPToken.sol";
import {ZeroAddress, EmptyName, IndexOutOfBounds} from "./LaurelErrors.sol";

/// @title AppFactory
/// @notice Creates Laurel apps (EIP-1167 clones of one App implementation), each with its own XP
///         token (a clone of one XPToken implementation), and lists them.
contract AppFactory {
    /// @notice Implementation cloned for each app.
    address public immutable appImplementation;
    /// @notice Implementation cloned for each app's XP token.
    address public immutable xpTokenImplementation;

    address[] private _apps;
    mapping(address => bool) private _isApp;

    event AppCreated(address indexed app, address indexed owner, string name, address xpToken);

    constructor(address appImplementation_, address xpTokenImplementation_) {
        if (appImplementation_ == address(0) || xpTokenImplementation_ == address(0)) revert ZeroAddress();
        appImplementation = appImplementation_;
        xpTokenImplementation = xpTokenImplementation_;
    }

    /// @notice Creates an app owned by the caller, with its XP token ("<name> XP").
    function createApp(string calldata name) external returns (address app) {
        if (bytes(name).length == 0) revert EmptyName();
        app = Clones.clone(appImplementation);
        address xp = Clones.clone(xpTokenImplementation);
        XPToken(xp).initialize(app, string.concat(name, " XP"));
        App(app).initialize(msg.sender, name, xp);
        _apps.push(app);
        _isApp[app] = true;
        emit AppCreated(app, msg.sender, name, xp);
    }

    function appCount() external view returns (uint256) {
        return _apps.length;
    }

    function appAt(uint256 index) external view returns (address) {
        if (index >= _apps.length) revert IndexOutOfBounds(index, _apps.length);
        return _apps[index];
    }

    function allApps() external view returns (address[] memory) {
        return _apps;
    }

    function isApp(address app) external view returns (bool) {
        return _isApp[app];
    }
}
