-- A class chain through __index.
local Base = {}
Base.__index = Base
function Base.new(name) return setmetatable({name = name}, Base) end
function Base:hello() return "hello from " .. self.name end
function Base:kind() return "base" end
local Derived = setmetatable({}, {__index = Base})
Derived.__index = Derived
function Derived.new(name) local o = Base.new(name); return setmetatable(o, Derived) end
function Derived:kind() return "derived" end
local d = Derived.new("d")
print(d:hello(), d:kind(), Base.kind(d))
print(getmetatable(d) == Derived, rawget(d, "hello"))
