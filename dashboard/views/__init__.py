"""Panel views: thin Viewer components over the Param models, the app shell and the shared charts."""
