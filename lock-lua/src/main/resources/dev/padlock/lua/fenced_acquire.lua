-- fenced_acquire: take a reentrant lock, or re-enter it, and get its fencing token.
--
-- KEYS[1]  the lock: a hash of <clientId>:<threadId> -> hold count (RLock's format)
-- KEYS[2]  the token counter, redisson_lock_token:{<name>}; never expires
-- KEYS[3]  the holders' since, padlock_since:{<name>} (see lock_since): a re-entry re-arms it
--          with the lock; a new hold's since is noted later, by its client, once the hold lasted
-- ARGV[1]  lease in milliseconds (PEXPIRE)
-- ARGV[2]  owner field, <clientId>:<threadId>
-- ARGV[3]  optional: 1 for a claim, by an owner that holds none of the lock as far as its caller
--          knows: when its field is already there (this same claim sent again after its reply
--          was lost, or a hold its caller gave up on or could not confirm releasing), it holds
--          exactly once, with a new token (no caller saw the old one as its own), so a claim
--          may be sent again safely
--
-- Returns  {1, token} when acquired: a first hold raises the counter to at least the server's
--          clock in microseconds (TIME: seconds * 10^6 + microseconds), then increments it and
--          gets its new value; a re-entry keeps the token it has (the counter's value, which only
--          a new holder moves) and sets a TTL of at least ARGV[1], never shortening what the
--          owner's other holds have. {0, pttl} when the lock is held by another owner (-1: no expiry).
-- Publishes nothing.
--
-- Why the clock: a counter that a restart lost, or that a promoted replica had not fully
-- received, would otherwise start again below tokens already handed out. Raised to the clock, a
-- new token is above every earlier one as long as the server's clock has not gone back by more
-- than the tokens handed out since (NTP-synced servers). Redisson's RFencedLock only INCRs the
-- same key, which keeps it increasing too.
--
-- The number is built from TIME's two strings (no float formatting; about 1.8e15, far below
-- Lua's exact 2^53). TIME is not deterministic, so the writes after it must replicate as their
-- effects: the default since Redis 5, the only mode since Redis 7, asked for explicitly on a
-- 6.x server configured for verbatim script replication.
-- A new token: the counter raised to the clock, then incremented. Called before any write.
local function next_token()
    if redis.replicate_commands then
        redis.replicate_commands()
    end
    local time = redis.call('time')
    local now = time[1] .. string.format('%06d', tonumber(time[2]))
    local counter = tonumber(redis.call('get', KEYS[2]) or '0')
    if counter < tonumber(now) then
        redis.call('set', KEYS[2], now)
    end
    return redis.call('incr', KEYS[2])
end

-- sets a TTL of at least ms on key, never a shorter one than it has, so a hold whose own lease is
-- longer keeps it: PEXPIRE GT (Redis 7), else (no GT on 6.2; or no TTL, which GT takes for the
-- longest) what PTTL says
local function extend(key, ms)
    local ok, set = pcall(redis.call, 'pexpire', key, ms, 'gt')
    if not ok or set == 0 then
        local ttl = redis.call('pttl', key)
        if ttl == -1 or (ttl >= 0 and ttl < tonumber(ms)) then
            redis.call('pexpire', key, ms)
        end
    end
end
local claim = ARGV[3] == '1'
if redis.call('exists', KEYS[1]) == 0 or (claim and redis.call('hexists', KEYS[1], ARGV[2]) == 1) then
    local token = next_token()
    redis.call('hset', KEYS[1], ARGV[2], 1)
    redis.call('pexpire', KEYS[1], ARGV[1])
    return {1, token}
end
if redis.call('hexists', KEYS[1], ARGV[2]) == 1 then
    redis.call('hincrby', KEYS[1], ARGV[2], 1)
    extend(KEYS[1], ARGV[1])
    extend(KEYS[3], ARGV[1])
    return {1, tonumber(redis.call('get', KEYS[2])) or 0}
end
return {0, redis.call('pttl', KEYS[1])}
