-- sets a global of its own: offers nothing
helper = 1
