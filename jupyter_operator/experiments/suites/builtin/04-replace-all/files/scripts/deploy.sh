#!/bin/sh
# Deploy the built site to the staging server.
set -eu

rsync -az --delete public/ "deploy@staging.old-example.org:/srv/site/"
ssh deploy@staging.old-example.org "systemctl reload nginx"
curl -fsS "https://staging.old-example.org/health" > /dev/null
echo "Deployed to staging.old-example.org"
# Production (prod.old-example.org) is deployed by CI only, never from here.
