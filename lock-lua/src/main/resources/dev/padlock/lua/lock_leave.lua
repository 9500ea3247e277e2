-- lock_leave: take this client out of the line of waiting clients of a lock (see lock_claim),
-- when the owner its place names stopped waiting.
--
-- KEYS[1]  the line of waiting clients, padlock_queue:{<name>}
-- KEYS[2]  this client's place in line, padlock_waiter:{<name>}:<clientId>
-- ARGV[1]  this client's id
-- ARGV[2]  the owner's thread id: the place goes only when it names this owner
--
-- Returns  1 when the client left the line, 0 when its place named another owner or was gone.
-- Publishes nothing.
local place = redis.call('get', KEYS[2])
if not place or string.match(place, '^(%-?%d+):') ~= ARGV[2] then
    return 0
end
redis.call('del', KEYS[2])
redis.call('lrem', KEYS[1], 0, ARGV[1])
return 1
