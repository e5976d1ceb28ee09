return { Fly = setmetatable({}, {}) }
