"""What a scene's agent is doing (``Agents.state``): one int8 per agent."""

WAITING, MOVING, ARRIVED, STUCK, RETRY = range(5)
STATE_NAMES = ("waiting", "moving", "arrived", "stuck", "retry")
