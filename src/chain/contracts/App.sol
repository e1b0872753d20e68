// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {Clones} from "@openzeppelin/contracts/proxy/Clones.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {XPToken} from "./XPToken.sol";
import {Badge} from "./Badge.sol";
import {CreditToken} from "./CreditToken.sol";
import {CreditTokenDeployer} from "./CreditTokenDeployer.sol";
import {
    NotOwner,
    NotOperator,
    ZeroAddress,
    ZeroAmount,
    EmptyActionId,
    EmptyName,
    EmptySymbol,
    InvalidDecimals,
    UnknownBadge,
    UnknownToken,
    NotPointToken,
    PointToken,
    AlreadyOperator,
    UnknownOperator,
    AlreadyInitialized
} from "./LaurelErrors.sol";

/// @title App
/// @notice A Laurel app: its address is the app id. The owner manages operators; the owner and
///         the operators reward users (XP, badges, credit and point tokens, ERC-20 transfers) and
///         create the app's credit/point tokens and badge collections. Every reward emits exactly
///         one `Rewarded` event.
/// @dev Deployed as EIP-1167 clones of one implementation by AppFactory; the implementation's
///      immutables (badge implementation, credit token deployer) are shared by all clones.
contract App {
    using SafeERC20 for IERC20;

    enum RewardKind {
        XP,
        Badge,
        CreditMint,
        CreditTransfer,
        Point
    }

    /// @notice Maximum decimals of a credit/point token.
    uint8 public constant MAX_DECIMALS = 18;

    /// @notice Implementation cloned for each badge collection.
    address public immutable badgeImplementation;
    /// @notice Helper contract that deploys credit/point tokens.
    address public immutable creditTokenDeployer;

    address private _factory;
    address private _owner;
    address private _xpToken;
    bool private _initialized;
    string private _name;
    mapping(address => bool) private _operators;
    address[] private _badges;
    mapping(address => bool) private _isBadge;
    address[] private _tokens;
    mapping(address => bool) private _isToken;

    /// @notice Call `index` of a batch reverted with `reason` (its own revert data).
    error BatchCallFailed(uint256 index, bytes reason);

    event OperatorAdded(address indexed operator);
    event OperatorRemoved(address indexed operator);
    event CreditTokenCreated(address indexed token, string name, string symbol, uint8 decimals, bool isPoint);
    event BadgeCreated(address indexed badge, string name, string baseURI);
    event Rewarded(
        address indexed app,
        address indexed receiver,
        address indexed token,
        RewardKind kind,
        uint256 amount,
        bytes32 actionId
    );

    constructor(address badgeImplementation_, address creditTokenDeployer_) {
        if (badgeImplementation_ == address(0) || creditTokenDeployer_ == address(0)) revert ZeroAddress();
        badgeImplementation = badgeImplementation_;
        creditTokenDeployer = creditTokenDeployer_;
        _initialized = true;
    }

    /// @notice Called once by the factory right after cloning.
    function initialize(address owner_, string calldata name_, address xpToken_) external {
        if (_initialized) revert AlreadyInitialized();
        if (owner_ == address(0) || xpToken_ == address(0)) revert ZeroAddress();
        _initialized = true;
        _factory = msg.sender;
        _owner = owner_;
        _name = name_;
        _xpToken = xpToken_;
    }

    modifier onlyOwner() {
        if (msg.sender != _owner) revert NotOwner(msg.sender);
        _;
    }

    modifier onlyOperator() {
        if (msg.sender != _owner && !_operators[msg.sender]) revert NotOperator(msg.sender);
        _;
    }

    modifier validReward(address receiver, uint256 amount, bytes32 actionId) {
        if (receiver == address(0)) revert ZeroAddress();
        if (amount == 0) revert ZeroAmount();
        if (actionId == bytes32(0)) revert EmptyActionId();
        _;
    }

    // ---------------------------------------------------------------- views

    function factory() external view returns (address) {
        return _factory;
    }

    function owner() external view returns (address) {
        return _owner;
    }

    function name() external view returns (string memory) {
        return _name;
    }

    function xpToken() external view returns (address) {
        return _xpToken;
    }

    /// @notice True for the owner and for every operator.
    function isOperator(address account) public view returns (bool) {
        return account == _owner || _operators[account];
    }

    function badges() external view returns (address[] memory) {
        return _badges;
    }

    function tokens() external view returns (address[] memory) {
        return _tokens;
    }

    function isBadge(address badge) external view returns (bool) {
        return _isBadge[badge];
    }

    function isToken(address token) external view returns (bool) {
        return _isToken[token];
    }

    // ------------------------------------------------------------ operators

    function addOperator(address operator) external onlyOwner {
        if (operator == address(0)) revert ZeroAddress();
        if (isOperator(operator)) revert AlreadyOperator(operator);
        _operators[operator] = true;
        emit OperatorAdded(operator);
    }

    function removeOperator(address operator) external onlyOwner {
        if (!_operators[operator]) revert UnknownOperator(operator);
        _operators[operator] = false;
        emit OperatorRemoved(operator);
    }

    // ------------------------------------------------------------- creation

    /// @notice Creates a credit token (transferable) or a point token (`isPoint`, non-transferable);
    ///         `initialSupply` is minted to the caller.
    function createCreditToken(
        string calldata name_,
        string calldata symbol_,
        uint8 decimals_,
        uint256 initialSupply,
        bool isPoint_
    ) external onlyOperator returns (address token) {
        if (bytes(name_).length == 0) revert EmptyName();
        if (bytes(symbol_).length == 0) revert EmptySymbol();
        if (decimals_ > MAX_DECIMALS) revert InvalidDecimals(decimals_, MAX_DECIMALS);
        token = CreditTokenDeployer(creditTokenDeployer).deploy(
            name_,
            symbol_,
            decimals_,
            isPoint_,
            msg.sender,
            initialSupply
        );
        _tokens.push(token);
        _isToken[token] = true;
        emit CreditTokenCreated(token, name_, symbol_, decimals_, isPoint_);
    }

    /// @notice Creates a badge (ERC-721) collection.
    function createBadge(string calldata name_, string calldata baseURI_) external onlyOperator returns (address badge) {
        if (bytes(name_).length == 0) revert EmptyName();
        badge = Clones.clone(badgeImplementation);
        Badge(badge).initialize(address(this), name_, baseURI_);
        _badges.push(badge);
        _isBadge[badge] = true;
        emit BadgeCreated(badge, name_, baseURI_);
    }

    // -------------------------------------------------------------- rewards

    function rewardXP(
        address receiver,
        uint256 amount,
        bytes32 actionId
    ) external onlyOperator validReward(receiver, amount, actionId) {
        address xp = _xpToken;
        XPToken(xp).mint(receiver, amount);
        emit Rewarded(address(this), receiver, xp, RewardKind.XP, amount, actionId);
    }

    /// @notice Mints `amount` badges (one token each, sequential ids); `tokenURI` is each new
    ///         token's own URI, or "" for the badge's base URI.
    function rewardBadge(
        address badge,
        address receiver,
        uint256 amount,
        string calldata tokenURI,
        bytes32 actionId
    ) external onlyOperator validReward(receiver, amount, actionId) {
        if (!_isBadge[badge]) revert UnknownBadge(badge);
        Badge(badge).mint(receiver, amount, tokenURI);
        emit Rewarded(address(this), receiver, badge, RewardKind.Badge, amount, actionId);
    }

    function rewardCredit(
        address token,
        address receiver,
        uint256 amount,
        bytes32 actionId
    ) external onlyOperator validReward(receiver, amount, actionId) {
        if (!_isToken[token]) revert UnknownToken(token);
        if (CreditToken(token).isPoint()) revert PointToken(token);
        CreditToken(token).mint(receiver, amount);
        emit Rewarded(address(this), receiver, token, RewardKind.CreditMint, amount, actionId);
    }

    function rewardPoint(
        address token,
        address receiver,
        uint256 amount,
        bytes32 actionId
    ) external onlyOperator validReward(receiver, amount, actionId) {
        if (!_isToken[token]) revert UnknownToken(token);
        if (!CreditToken(token).isPoint()) revert NotPointToken(token);
        CreditToken(token).mint(receiver, amount);
        emit Rewarded(address(this), receiver, token, RewardKind.Point, amount, actionId);
    }

    /// @notice Moves `amount` of any ERC-20 from the caller to `receiver`; the caller must have
    ///         approved this app. The token's own errors (e.g. ERC20InsufficientAllowance) bubble up.
    function transferERC20(
        address token,
        address receiver,
        uint256 amount,
        bytes32 actionId
    ) external onlyOperator validReward(receiver, amount, actionId) {
        if (token == address(0)) revert ZeroAddress();
        IERC20(token).safeTransferFrom(msg.sender, receiver, amount);
        emit Rewarded(address(this), receiver, token, RewardKind.CreditTransfer, amount, actionId);
    }

    // ---------------------------------------------------------------- batch

    /// @notice Makes several calls of this app in one transaction, in order, all or none: each is
    ///         delegate-called, so it keeps the caller (msg.sender) and checks its own rights, and
    ///         emits its own events (one `Rewarded` per reward). A failing call reverts the batch
    ///         with `BatchCallFailed(index, its revert data)`.
    /// @dev OpenZeppelin's Multicall bubbles the inner revert as is, without saying which call it was.
    function batch(bytes[] calldata calls) external onlyOperator {
        for (uint256 i = 0; i < calls.length; ++i) {
            (bool ok, bytes memory reason) = address(this).delegatecall(calls[i]);
            if (!ok) revert BatchCallFailed(i, reason);
        }
    }
}
