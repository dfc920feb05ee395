import './base.css';
import './files.css';
import './cells.css';
import './edit.css';
