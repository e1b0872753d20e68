// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {CreditToken} from "./CreditToken.sol";

/// @title CreditTokenDeployer
/// @notice Holds CreditToken's creation code so that App stays under the EIP-170 size limit.
///         The new token's app is always the caller, so nobody can create a token for someone
///         else's app.
contract CreditTokenDeployer {
    function deploy(
        string calldata name,
        string calldata symbol,
        uint8 decimals,
        bool isPoint,
        address initialHolder,
        uint256 initialSupply
    ) external returns (address token) {
        token = address(new CreditToken(name, symbol, decimals, isPoint, msg.sender, initialHolder, initialSupply));
    }
}
