// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {NotApp, ZeroAddress, ZeroAmount, AlreadyInitialized} from "./LaurelErrors.sol";

/// @title Badge
/// @notice An app's ERC-721 collection (symbol "BADGE"). Only the app mints, with sequential token
///         ids starting at 1, and an optional per-token URI (else base URI + token id).
/// @dev Deployed as EIP-1167 clones of one implementation.
contract Badge is ERC721 {
    address private _app;
    string private _badgeName;
    string private _baseTokenURI;
    uint256 private _totalSupply;
    bool private _initialized;
    mapping(uint256 tokenId => string) private _tokenURIs;

    constructor() ERC721("", "") {
        _initialized = true;
    }

    /// @notice Called once by the app right after cloning.
    function initialize(address app_, string calldata name_, string calldata baseURI_) external {
        if (_initialized) revert AlreadyInitialized();
        if (app_ == address(0)) revert ZeroAddress();
        _initialized = true;
        _app = app_;
        _badgeName = name_;
        _baseTokenURI = baseURI_;
    }

    /// @notice The app that mints this badge.
    function app() external view returns (address) {
        return _app;
    }

    function name() public view override returns (string memory) {
        return _badgeName;
    }

    function symbol() public pure override returns (string memory) {
        return "BADGE";
    }

    /// @notice The base URI (token URI = base URI + token id unless the token has its own URI).
    function baseURI() external view returns (string memory) {
        return _baseTokenURI;
    }

    /// @notice Number of badges minted so far (also the highest token id).
    function totalSupply() external view returns (uint256) {
        return _totalSupply;
    }

    /// @notice Mints `amount` badges to `to` with ids `firstTokenId .. firstTokenId + amount - 1`;
    ///         each gets `uri` as its own token URI unless `uri` is empty. Only the app.
    function mint(address to, uint256 amount, string calldata uri) external returns (uint256 firstTokenId) {
        if (msg.sender != _app) revert NotApp(msg.sender);
        if (amount == 0) revert ZeroAmount();
        uint256 next = _totalSupply;
        firstTokenId = next + 1;
        bool hasUri = bytes(uri).length > 0;
        for (uint256 i = 0; i < amount; ++i) {
            ++next;
            _mint(to, next);
            if (hasUri) _tokenURIs[next] = uri;
        }
        _totalSupply = next;
    }

    function tokenURI(uint256 tokenId) public view override returns (string memory) {
        _requireOwned(tokenId);
        string memory own = _tokenURIs[tokenId];
        if (bytes(own).length > 0) return own;
        return super.tokenURI(tokenId);
    }

    function _baseURI() internal view override returns (string memory) {
        return _baseTokenURI;
    }
}
