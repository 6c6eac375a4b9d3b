"""Before the moves: helpers where they always were."""
