import './base.css';
import './files.css';
import './edit.css';
