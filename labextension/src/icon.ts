/** The Operator icon: a document with a check mark, in the theme's icon colour. */
import { LabIcon } from '@jupyterlab/ui-components';

const svgstr = `<svg xmlns="http://www.w3.org/2000/svg" width="16" viewBox="0 0 24 24">
  <g class="jp-icon3" fill="#616161">
    <path d="M6 2h9l5 5v6.2a6 6 0 0 0-2-.2V8h-4V4H6v16h6.3a6 6 0 0 0 .9 2H6a2 2 0 0 1-2-2V4a2 2 0 0 1 2-2z"/>
    <path d="M18 14a4.5 4.5 0 1 1 0 9 4.5 4.5 0 0 1 0-9zm2 2.3-2.6 2.9-1.4-1.3-.8.8 2.2 2.1 3.4-3.8z"/>
  </g>
</svg>`;

export const operatorIcon = new LabIcon({ name: 'jupyter-operator:operator', svgstr });
